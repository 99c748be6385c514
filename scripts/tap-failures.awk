# The failures of a node:test TAP stream, each with its error and the head of its stack; tests cancelled because
# their suite failed, and suites failed only because a test did, are left out (the cause is printed once).
#   awk -f scripts/tap-failures.awk test-output.tap
function flush() {
  if (open && block !~ /cancelledByParent|subtestsFailed/) print block
  open = 0
  block = ""
}
/^ *not ok / { flush(); open = 1; block = $0; stack = -1; next }
open && /^ *\.\.\.$/ { flush(); next }
open && /^ *stack: / { stack = 0 }
open && (stack < 0 || stack++ < 5) { block = block "\n" $0 }
END { flush() }
