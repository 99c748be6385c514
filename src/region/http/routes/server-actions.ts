/**
 * Server actions: start, stop, soft and hard reboot, console session and output (on v2's and v1's paths alike),
 * snapshot (run against the cloud through the serverActions capability), and the identity keypair's private key
 * (read from the identity record). A server the action cannot act on now is a bad request, as upstream answers it;
 * any other provider failure reaches the client only as fixed text.
 */
import type { TSchema } from 'typebox';
import { openstackIdentityType, serverType, type Server } from '../../apis/index.ts';
import { ResourceConflictError, ResourceNotFoundError } from '../../provider/errors.ts';
import type { ServerActions } from '../context.ts';
import { principalOf } from '../principal.ts';
import { Problem, problems } from '../problem.ts';
import { imageRead } from '../resources/inventory.ts';
import { tenancyOf } from '../resources/meta.ts';
import { resolvedSSHInjection } from '../resources/server.ts';
import { ImageV2 } from '../schemas/inventory.ts';
import { ConsoleOutput, ConsoleOutputQuery, ConsoleSession, SnapshotCreate, SshKey } from '../schemas/server.ts';
import { Accepted, doc, IDParams, type Api, type RequestWithParams, type RouteDeps, type RouteParams } from './kit.ts';
import { serverIDOf } from './server.ts';

const TAG = 'Servers';
const Params = IDParams('serverID');
const ACTION_TIMEOUT_MS = 60_000;

/** Where a family of action routes lives and how it finds the server a request names (404 when it cannot). */
interface ActionPaths<P extends TSchema> {
  /** The server's path, e.g. `/api/v2/servers/:serverID`. */
  readonly server: string;
  readonly params: P;
  readonly tag: string;
  readonly find: (request: RequestWithParams<RouteParams<P>>) => Promise<Server>;
}

/** Runs one action against the cloud for the server `paths` finds, mapping its failures to problems. */
function actionRunner<P extends TSchema>(deps: RouteDeps, find: ActionPaths<P>['find']) {
  const lookup = deps.capabilities.serverActions;
  return async <R>(
    request: RequestWithParams<RouteParams<P>>,
    what: string,
    run: (actions: ServerActions, server: Server, signal: AbortSignal) => Promise<R>,
  ): Promise<R> => {
    const server = await find(request);
    if (lookup === undefined) throw problems.notImplemented(`server ${what}`);
    const signal = AbortSignal.timeout(ACTION_TIMEOUT_MS);
    try {
      return await run(await lookup(server, signal), server, signal);
    } catch (error) {
      if (error instanceof Problem) throw error;
      if (error instanceof ResourceNotFoundError) throw problems.notFound('server');
      // Upstream: "server cannot be started in its current state", an invalid request.
      if (error instanceof ResourceConflictError) {
        throw new Problem('bad-request', `the server cannot take a ${what} in its current state; retry shortly`);
      }
      deps.log?.warn({ err: error, server: server.metadata.name, action: what }, 'server action failed');
      throw problems.unavailable(`the server ${what} could not be carried out; retry shortly`);
    }
  };
}

/** Power actions and the console, on one family of paths. */
export function powerAndConsoleRoutes<P extends TSchema>(app: Api, deps: RouteDeps, paths: ActionPaths<P>): void {
  const withActions = actionRunner(deps, paths.find);
  const action = (
    path: string,
    summary: string,
    what: string,
    run: (a: ServerActions, s: AbortSignal) => Promise<void>,
  ) =>
    app.post(
      `${paths.server}/${path}`,
      { schema: doc(paths.tag, summary, { params: paths.params }, { 202: Accepted }) },
      async (request, reply) => {
        await withActions(request, what, (actions, _server, signal) => run(actions, signal));
        return reply.code(202).send();
      },
    );

  action('start', 'Start a server', 'start', (a, s) => a.start(s));
  action('stop', 'Stop a server', 'stop', (a, s) => a.stop(s));
  action('softreboot', 'Reboot a server gracefully', 'reboot', (a, s) => a.reboot(false, s));
  action('hardreboot', 'Reboot a server by power cycle', 'reboot', (a, s) => a.reboot(true, s));

  app.get(
    `${paths.server}/consolesessions`,
    { schema: doc(paths.tag, 'Open a console session', { params: paths.params }, { 200: ConsoleSession }) },
    (request) =>
      withActions(request, 'console session', async (actions, _server, signal) => {
        if (actions.consoleSession === undefined) throw problems.notImplemented('server console sessions');
        return { url: await actions.consoleSession(signal) };
      }),
  );

  app.get(
    `${paths.server}/consoleoutput`,
    {
      schema: doc(
        paths.tag,
        'Read the console output',
        { params: paths.params, querystring: ConsoleOutputQuery },
        { 200: ConsoleOutput },
      ),
    },
    (request) =>
      withActions(request, 'console output', async (actions, _server, signal) => {
        if (actions.consoleOutput === undefined) throw problems.notImplemented('server console output');
        const { length } = request.query;
        return { contents: await actions.consoleOutput(length, signal) };
      }),
  );
}

export function serverActionRoutes(app: Api, deps: RouteDeps): void {
  const repo = deps.repository;
  const find = (request: RequestWithParams<{ serverID: string }>) =>
    repo.get(serverType, principalOf(request), serverIDOf(request), 'server');
  powerAndConsoleRoutes(app, deps, { server: '/api/v2/servers/:serverID', params: Params, tag: TAG, find });
  const withActions = actionRunner<typeof Params>(deps, find);

  app.post(
    '/api/v2/servers/:serverID/snapshot',
    { schema: doc(TAG, 'Snapshot a server into an image', { params: Params, body: SnapshotCreate }, { 201: ImageV2 }) },
    async (request, reply) => {
      const image = await withActions(request, 'snapshot', async (actions, _server, signal) => {
        if (actions.snapshot === undefined) throw problems.notImplemented('server snapshots');
        return actions.snapshot(request.body.metadata.name, signal);
      });
      return reply.code(201).send(imageRead(image));
    },
  );

  app.get(
    '/api/v2/servers/:serverID/sshkey',
    { schema: doc(TAG, "Download the identity keypair's private key", { params: Params }, { 200: SshKey }) },
    async (request) => {
      const server = await find(request);
      if (resolvedSSHInjection(server.spec) !== 'identityKeypair') throw problems.notFound('SSH key');
      const record = await repo.find(openstackIdentityType, tenancyOf(server).identityID);
      const key = record?.spec.sshPrivateKey;
      if (key === undefined || key === '') throw problems.notFound('SSH key');
      return { privateKey: Buffer.from(key, 'base64').toString('utf8') };
    },
  );
}
