/** What `region configure` records for a region, as the registration tests start from. */
import type { RegionCredentials } from '../credentials.ts';

export const testCredentials: RegionCredentials = {
  authUrl: 'https://keystone.example:5000/v3',
  regionName: 'RegionOne',
  domainID: 'd1',
  domainName: 'staging',
  projectID: 'p1',
  projectName: 'staging-region',
  userID: 'u1',
  userName: 'staging-region',
  password: 'pw-1',
};
