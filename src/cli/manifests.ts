/**
 * The documents `apply -f` reads, by kubectl's rules: a file, standard input (`-`), or a directory's `.yaml`, `.yml`
 * and `.json` files in name order (its subdirectories too with `-R`); a `kind: List` stands for its items. Each
 * document keeps where it came from, so an error names the file and the document.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CliError } from './connect.ts';

export interface Document {
  /** `file`, or `file, document N` when the file holds several. */
  readonly where: string;
  readonly value: unknown;
}

const MANIFEST_EXTENSIONS = ['.yaml', '.yml', '.json'];

/** The documents of one file's text (null documents, a lone `---`'s, dropped). */
export function documentsOf(text: string, source: string): Document[] {
  const docs = parseAllDocuments(text);
  const found: Document[] = [];
  for (const [i, doc] of docs.entries()) {
    // The parser's messages carry a code frame on further lines: the first line says what and where.
    if (doc.errors.length > 0) {
      throw new CliError(`${source}: ${doc.errors.map((e) => e.message.split('\n')[0]).join('; ')}`, 'rejected');
    }
    const value: unknown = doc.toJS();
    if (value === null) continue;
    const where = docs.length === 1 ? source : `${source}, document ${String(i + 1)}`;
    const list = value as { kind?: unknown; items?: unknown };
    if (list.kind === 'List' && Array.isArray(list.items)) {
      found.push(
        ...list.items.map((item, n) => ({ where: `${where}, item ${String(n + 1)}`, value: item as unknown })),
      );
    } else found.push({ where, value });
  }
  return found;
}

function filesUnder(dir: string, recursive: boolean): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return recursive ? filesUnder(path, true) : [];
      return MANIFEST_EXTENSIONS.some((ext) => entry.name.endsWith(ext)) ? [path] : [];
    });
}

/** The documents of every `-f` (in order); `stdin` reads standard input once, for `-`. */
export async function readManifests(
  filenames: readonly string[],
  options: { readonly recursive: boolean; readonly stdin: () => Promise<string> },
): Promise<Document[]> {
  const documents: Document[] = [];
  for (const filename of filenames) {
    if (filename === '-') {
      documents.push(...documentsOf(await options.stdin(), 'standard input'));
      continue;
    }
    let isDirectory: boolean;
    try {
      isDirectory = statSync(filename).isDirectory();
    } catch {
      throw new CliError(`the path "${filename}" does not exist`);
    }
    const files = isDirectory ? filesUnder(filename, options.recursive) : [filename];
    if (isDirectory && files.length === 0) {
      throw new CliError(
        `error reading ${filename}: no .yaml, .yml or .json file in it${options.recursive ? '' : ' (-R reads its subdirectories)'}`,
      );
    }
    for (const file of files) documents.push(...documentsOf(readFileSync(file, 'utf8'), file));
  }
  return documents;
}
