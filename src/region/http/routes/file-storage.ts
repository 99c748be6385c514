/**
 * `/api/v2/filestorage*` and `/api/v2/filestorageclasses`: upstream serves file storage from a separate storage
 * provisioner (its FileStorage saga), not from the OpenStack provider this service implements. The paths exist so
 * an upstream client gets a clear answer instead of "no such route": 501, saying where the capability lives.
 */
import Type from 'typebox';
import { principalOf } from '../principal.ts';
import { Problem } from '../problem.ts';
import { doc, type Api } from './kit.ts';

const TAG = 'File storage';

export const FILE_STORAGE_DETAIL =
  'file storage is served by a separate storage provisioner upstream, not by the OpenStack provider; ' +
  'this region service does not provide it';

const NotServed = Type.Null({ description: 'Never: answered 501.' });
const Params = Type.Object({ filestorageID: Type.String({ description: 'The file storage.' }) });

export function fileStorageRoutes(app: Api): void {
  const notServed = (summary: string) => ({ schema: doc(TAG, summary, {}, { 200: NotServed }) });
  const notServedOne = (summary: string) => ({ schema: doc(TAG, summary, { params: Params }, { 200: NotServed }) });
  const refuse = (request: Parameters<typeof principalOf>[0]): never => {
    principalOf(request);
    throw new Problem('not-implemented', FILE_STORAGE_DETAIL);
  };
  app.get('/api/v2/filestorage', notServed('List file storage (not served: 501)'), refuse);
  app.post('/api/v2/filestorage', notServed('Create file storage (not served: 501)'), refuse);
  app.get('/api/v2/filestorage/:filestorageID', notServedOne('Get file storage (not served: 501)'), refuse);
  app.put('/api/v2/filestorage/:filestorageID', notServedOne('Update file storage (not served: 501)'), refuse);
  app.delete('/api/v2/filestorage/:filestorageID', notServedOne('Delete file storage (not served: 501)'), refuse);
  app.get('/api/v2/filestorageclasses', notServed('List file storage classes (not served: 501)'), refuse);
}
