// batch/v1 resources.
import { pathGetter } from '../../machinery/fields.js';
import type { Job } from 'kubernetes-types/batch/v1.js';
import type { ResourceDef } from '../resource.js';
import { defaultJobSelector } from '../defaults/batch.js';

export const batchResources: ResourceDef[] = [
  { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', singular: 'job', namespaced: true, categories: ['all'], subresources: ['status'], generation: true, defaultPropagation: 'Orphan', emptyStatus: {},
    prepareCreate: (obj) => defaultJobSelector(obj as unknown as Job), fieldSelectors: { 'status.successful': pathGetter('status.successful') } },
  { group: 'batch', version: 'v1', kind: 'CronJob', plural: 'cronjobs', singular: 'cronjob', namespaced: true, shortNames: ['cj'], categories: ['all'], subresources: ['status'], generation: true, emptyStatus: {} },
];
