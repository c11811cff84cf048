import type { FastifyInstance } from 'fastify';
import { aggregatedListInstanceTemplates } from './routes/aggregatedListInstanceTemplates.ts';
import { aggregatedListOperations } from './routes/aggregatedListOperations.ts';
import { deleteRegionInstanceTemplate } from './routes/deleteRegionInstanceTemplate.ts';
import { deleteRegionOperation } from './routes/deleteRegionOperation.ts';
import { getImage } from './routes/getImage.ts';
import { getRegion } from './routes/getRegion.ts';
import { getRegionInstanceTemplate } from './routes/getRegionInstanceTemplate.ts';
import { getRegionOperation } from './routes/getRegionOperation.ts';
import { insertRegionInstanceTemplate } from './routes/insertRegionInstanceTemplate.ts';
import { listRegionInstanceTemplates } from './routes/listRegionInstanceTemplates.ts';
import { listRegionOperations } from './routes/listRegionOperations.ts';
import { listRegions } from './routes/listRegions.ts';
import { waitRegionOperation } from './routes/waitRegionOperation.ts';
import type { ComputeService } from './service.ts';

/** Mounts the Compute v1 REST surface. */
export function registerComputeRoutes(app: FastifyInstance, svc: ComputeService): void {
  for (const route of [
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
    getImage,
    getRegion,
    listRegions,
  ]) {
    route(app, svc);
  }
}
