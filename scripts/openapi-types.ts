/**
 * `npm run openapi:types`: writes console/api-types.ts from the document the API serves; with `--document FILE`,
 * the document itself too (for another client generator).
 */
import { writeFileSync } from 'node:fs';
import { API_TYPES_FILE, apiTypes, servedDocument } from '../src/region/http/testing/api-types.ts';

const document = await servedDocument();
const at = process.argv.indexOf('--document');
const documentFile = at === -1 ? undefined : process.argv[at + 1];
if (documentFile !== undefined) writeFileSync(documentFile, `${JSON.stringify(document, null, 2)}\n`);
writeFileSync(API_TYPES_FILE, await apiTypes(document));
process.stdout.write(`wrote ${API_TYPES_FILE.pathname}${documentFile === undefined ? '' : ` and ${documentFile}`}\n`);
