/**
 * Every citation in a comment of src/ resolves inside the repository: a cited file (`docs/spec/openstack-provider.md`)
 * exists, a cited section (`§Image rebuild`) is a heading of that file, and a cited ADR (`ADR 0012`) is in docs/adr/;
 * and no comment points outside it (to the design notes a clone does not have, or to issue numbers). Read from the
 * syntax of each file, so only comments count, not code or strings.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The text of every comment in a module, each once, with the line it starts on; a run of `//` lines is one. */
function commentsOf(file: string): { line: number; text: string }[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
  const seen = new Map<number, { line: number; text: string }>();
  const collect = (ranges: readonly ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      const line = source.getLineAndCharacterOfPosition(range.pos).line + 1;
      seen.set(range.pos, { line, text: text.slice(range.pos, range.end) });
    }
  };
  // Every comment sits in the trivia before some node or after the last one in its parent.
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.pos));
    collect(ts.getLeadingCommentRanges(text, node.end));
    collect(ts.getTrailingCommentRanges(text, node.end));
    ts.forEachChild(node, visit);
  };
  visit(source);
  const ordered = [...seen.entries()].sort(([a], [b]) => a - b);
  const merged: { line: number; text: string; end: number }[] = [];
  for (const [pos, comment] of ordered) {
    const last = merged.at(-1);
    const between = last === undefined ? '' : text.slice(last.end, pos);
    if (last !== undefined && comment.text.startsWith('//') && last.text.startsWith('//') && /^\s*$/.test(between)) {
      last.text += `\n${comment.text}`;
      last.end = pos + comment.text.length;
    } else merged.push({ ...comment, end: pos + comment.text.length });
  }
  return merged.map(({ line, text }) => ({ line, text }));
}

const comments = filesUnder(SRC).flatMap((file) =>
  commentsOf(file).map((c) => ({
    where: `${relative(ROOT, file)}:${c.line}`,
    text: c.text.replace(/\s*\n\s*(?:\*|\/\/)?\s*/g, ' '),
  })),
);

/** The headings of a markdown file, without their `#` marks. */
function headingsOf(path: string): string[] {
  return [...readFileSync(path, 'utf8').matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map((m) => m[1] ?? '');
}

/** Whether `cited` starts with a heading of the file, ending where the heading ends (not mid-word). */
function namesAHeading(cited: string, headings: readonly string[]): boolean {
  return headings.some((h) => cited.startsWith(h) && !/[\p{L}\p{N}]/u.test(cited.charAt(h.length)));
}

/** `docs/….md`, optionally followed by ` §Section` (the text up to the next citation; a heading must begin it). */
const FILE_CITATION = /\b((?:docs\/[\w./-]+|CONTRIBUTING|README)\.md)(?:\s+§\s?((?:(?!docs\/|§)[\s\S])+))?/g;
const ADR_CITATION = /\bADR (\d{4})\b/g;

/** How comments used to cite what lies outside the repository, each with what to write instead. */
const OUTSIDE: readonly (readonly [RegExp, string])[] = [
  [/\.\.\/shared|\bseeds\/|\breference\/|\bARCHITECTURE\b/, 'a design note outside the repository'],
  [/\bref §|\b[\w-]+\.md §\d|\.md pitfall \d/i, 'a section of a note by number'],
  [/(?<!Ed25519 )\bseed\b/, 'the specification by its old name'],
  [/\b(?:issue|PR)\s*#?\d|\bupstream #\d|\bDone means \d/i, 'an issue or pull request'],
];

describe('citations', () => {
  it('every cited file and section exists in the repository', () => {
    const adrs = readdirSync(join(ROOT, 'docs', 'adr')).map((f) => f.slice(0, 4));
    const broken: string[] = [];
    let resolved = 0;
    for (const { where, text } of comments) {
      for (const [, file = '', section] of text.matchAll(FILE_CITATION)) {
        const path = join(ROOT, file);
        if (!existsSync(path)) broken.push(`${where}: ${file} does not exist`);
        else if (section !== undefined && !namesAHeading(section, headingsOf(path))) {
          broken.push(`${where}: ${file} has no section "${section.slice(0, 40)}…"`);
        } else resolved += 1;
      }
      for (const [, number = ''] of text.matchAll(ADR_CITATION)) {
        if (!adrs.includes(number)) broken.push(`${where}: ADR ${number} is not in docs/adr/`);
        else resolved += 1;
      }
    }
    assert.deepEqual(broken, []);
    assert.ok(resolved > 0, 'found no citation at all: the pattern no longer matches how comments cite');
  });

  it('no comment points outside the repository', () => {
    const outside = comments.flatMap(({ where, text }) =>
      OUTSIDE.filter(([pattern]) => pattern.test(text)).map(([, what]) => `${where}: cites ${what}`),
    );
    assert.deepEqual(outside, []);
  });
});
