/** console/api-types.ts is what openapi-typescript makes of the served document (regenerate: npm run openapi:types). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { API_TYPES_FILE, apiTypes, servedDocument } from './testing/api-types.ts';

describe('console/api-types.ts', () => {
  it('is up to date with /openapi.json (regenerate: npm run openapi:types)', async () => {
    const expected = await apiTypes(await servedDocument());
    assert.ok(expected.includes('"/api/v2/networks": {'), 'the types name the paths');
    assert.ok(expected.includes('GetApiV2NetworksNetworkID: {'), 'and the operations, by operationId');
    assert.equal(readFileSync(API_TYPES_FILE, 'utf8'), expected);
  });
});
