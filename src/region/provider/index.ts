/** The provider-neutral contract: what `region/openstack/` implements and the controllers and HTTP layer drive. */
export * from './classify.ts';
export * from './disk.ts';
export type * from './contract.ts';
export * from './errors.ts';
export type * from './inputs.ts';
export * from './messages.ts';
export * from './outcome.ts';
export type * from './types.ts';
