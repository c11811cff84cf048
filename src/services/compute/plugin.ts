import type { FastifyInstance } from 'fastify';
import { aggregatedListInstanceTemplates } from './routes/aggregatedListInstanceTemplates.ts';
import { aggregatedListOperations } from './routes/aggregatedListOperations.ts';
import { deleteGlobalOperation } from './routes/deleteGlobalOperation.ts';
import { deleteInstanceTemplate } from './routes/deleteInstanceTemplate.ts';
import { getGlobalOperation } from './routes/getGlobalOperation.ts';
import { getInstanceTemplate } from './routes/getInstanceTemplate.ts';
import { getInstanceTemplateIamPolicy } from './routes/getInstanceTemplateIamPolicy.ts';
import { setInstanceTemplateIamPolicy } from './routes/setInstanceTemplateIamPolicy.ts';
import { testInstanceTemplateIamPermissions } from './routes/testInstanceTemplateIamPermissions.ts';
import { insertInstanceTemplate } from './routes/insertInstanceTemplate.ts';
import { listGlobalOperations } from './routes/listGlobalOperations.ts';
import { listInstanceTemplates } from './routes/listInstanceTemplates.ts';
import { waitGlobalOperation } from './routes/waitGlobalOperation.ts';
import { deleteRegionInstanceTemplate } from './routes/deleteRegionInstanceTemplate.ts';
import { deleteRegionOperation } from './routes/deleteRegionOperation.ts';
import { getRegionInstanceTemplate } from './routes/getRegionInstanceTemplate.ts';
import { getRegionOperation } from './routes/getRegionOperation.ts';
import { insertRegionInstanceTemplate } from './routes/insertRegionInstanceTemplate.ts';
import { listRegionInstanceTemplates } from './routes/listRegionInstanceTemplates.ts';
import { listRegionOperations } from './routes/listRegionOperations.ts';
import { waitRegionOperation } from './routes/waitRegionOperation.ts';
import type { ComputeService } from './service.ts';

/** Mounts the Compute v1 REST surface. */
export function registerComputeRoutes(app: FastifyInstance, svc: ComputeService): void {
  for (const route of [
    insertInstanceTemplate,
    getInstanceTemplate,
    listInstanceTemplates,
    deleteInstanceTemplate,
    getInstanceTemplateIamPolicy,
    setInstanceTemplateIamPolicy,
    testInstanceTemplateIamPermissions,
    getGlobalOperation,
    listGlobalOperations,
    deleteGlobalOperation,
    waitGlobalOperation,
    insertRegionInstanceTemplate,
    getRegionInstanceTemplate,
    listRegionInstanceTemplates,
    deleteRegionInstanceTemplate,
    getRegionOperation,
    listRegionOperations,
    deleteRegionOperation,
    waitRegionOperation,
    aggregatedListInstanceTemplates,
    aggregatedListOperations,
  ]) {
    route(app, svc);
  }
}
