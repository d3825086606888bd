// batch/v1 resources.
import { pathGetter } from '../../machinery/fields.js';
import type { ResourceDef } from '../resource.js';

export const batchResources: ResourceDef[] = [
  { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', singular: 'job', namespaced: true, categories: ['all'], subresources: ['status'], generation: true, defaultPropagation: 'Orphan', fieldSelectors: { 'status.successful': pathGetter('status.successful') } },
  { group: 'batch', version: 'v1', kind: 'CronJob', plural: 'cronjobs', singular: 'cronjob', namespaced: true, shortNames: ['cj'], categories: ['all'], subresources: ['status'], generation: true },
];
