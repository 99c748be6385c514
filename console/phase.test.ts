import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serverPhase } from './phase.ts';

type Meta = Parameters<typeof serverPhase>[0]['metadata'];
const server = (metadata: Partial<Meta>, powerState?: 'Building' | 'Running' | 'Stopped') => ({
  metadata: { provisioningStatus: 'provisioning' as const, ...metadata },
  status: powerState === undefined ? {} : { powerState },
});

describe('a server phase', () => {
  it('reads a first build as building and an image change after an update as rebuilding', () => {
    assert.equal(serverPhase(server({}, 'Building')), 'building');
    assert.equal(serverPhase(server({ modifiedTime: '2026-01-01T00:00:00Z' }, 'Building')), 'rebuilding');
    const applying = { reason: 'Provisioning' as const, message: 'an image change is being applied' };
    assert.equal(serverPhase(server({ provisioningStatusDetail: applying }, 'Running')), 'rebuilding');
  });

  it('leads with the observed lifecycle, else the provisioning status', () => {
    assert.equal(serverPhase(server({ provisioningStatus: 'provisioned' }, 'Running')), 'running');
    assert.equal(serverPhase(server({ provisioningStatus: 'provisioned' }, 'Stopped')), 'stopped');
    assert.equal(serverPhase(server({})), 'provisioning');
    assert.equal(serverPhase(server({ provisioningStatus: 'provisioned' })), 'provisioned');
  });

  it('says deleting and error before anything else', () => {
    assert.equal(serverPhase(server({ deletionTime: '2026-01-01T00:00:00Z' }, 'Running')), 'deleting');
    assert.equal(serverPhase(server({ provisioningStatus: 'error' }, 'Running')), 'error');
  });
});
