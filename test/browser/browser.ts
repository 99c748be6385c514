/**
 * The browser the console suite drives: Debian's Chromium (`apt-get install -y chromium`) through playwright-core,
 * which downloads nothing. Without it the suite skips, saying so, except under CI=true, where it fails.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env['OPENREGION_CHROMIUM'] ?? '/usr/bin/chromium';

/** Why the suite cannot run here, or undefined when it can. */
export function missingBrowser(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM}: apt-get install -y chromium`;
}

export function launch(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** WCAG 2.0 and 2.1, levels A and AA, and axe's best practices. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { target: unknown }[];
}

/** axe-core's violations of serious or critical impact on the page as it is now (WCAG 2.x A and AA rules). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // The console's CSP allows no inline script: the context bypasses it for this one injection.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.addScriptTag({ content: AXE_SOURCE });
  // Runs in the page (this project's types have no DOM): axe and document are the page's globals.
  const violations = await page.evaluate(async (tags) => {
    const page = globalThis as unknown as {
      axe: { run: (context: unknown, options: unknown) => Promise<{ violations: AxeViolation[] }> };
      document: unknown;
    };
    const result = await page.axe.run(page.document, { runOnly: { type: 'tag', values: tags } });
    return result.violations;
  }, AXE_TAGS);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
