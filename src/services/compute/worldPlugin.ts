import type { FastifyInstance } from 'fastify';
import { batchCompute } from './routes/batch.ts';
import { aggregatedListWorldResources } from './routes/aggregatedListWorldResources.ts';
import { getImageFromFamily } from './routes/getImageFromFamily.ts';
import { getWorldResource } from './routes/getWorldResource.ts';
import { listWorldResources } from './routes/listWorldResources.ts';
import { unofferedWorldMethods } from './routes/unofferedWorldMethods.ts';
import type { ComputeWorldReader } from './worldReader.ts';

/** Mounts the world's Compute resources, read only (see worldResources.ts). */
export function registerComputeWorldRoutes(app: FastifyInstance, reader: ComputeWorldReader): void {
  for (const route of [getWorldResource, getImageFromFamily, listWorldResources, aggregatedListWorldResources]) route(app, reader);
  unofferedWorldMethods(app);
  batchCompute(app);
}
