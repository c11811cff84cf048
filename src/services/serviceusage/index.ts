import type { FastifyInstance } from 'fastify';
import type { AccessControl } from '../../platform/iam/accessControl.ts';
import { listServices } from './routes/listServices.ts';

/** An API this server serves, as Service Usage lists it. */
export interface ServedApi {
  name: string;
  title: string;
}

export const SERVICE = 'serviceusage.googleapis.com';

/**
 * The slice of Service Usage v1 the API Keys console needs: the APIs a project can restrict a key
 * to (`services.list`, every API cloudtwin serves, all enabled), behind `serviceusage.services.list`.
 */
export function createServiceUsage(app: FastifyInstance, d: { access: AccessControl; apis: readonly ServedApi[] }): void {
  listServices(app, d);
}
