/** One image as the providers hand it over, for tests: a ready x86_64 Ubuntu 24.04, changed by `overrides`. */
import type { Image } from '../types.ts';

export const testImage = (id: string, overrides: Partial<Image> = {}): Image => ({
  id,
  name: id,
  tags: {},
  created: '2026-01-01T00:00:00Z',
  modified: '2026-01-01T00:00:00Z',
  architecture: 'x86_64',
  sizeGiB: 1,
  virtualization: 'virtualized',
  os: { kernel: 'linux', family: 'debian', distro: 'ubuntu', version: '24.04' },
  status: 'ready',
  ...overrides,
});
