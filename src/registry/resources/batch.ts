// batch/v1 resources.
import { pathGetter } from '../../machinery/fields.js';
import type { Job } from '../../generated/k8s/batch/v1.js';
import type { ResourceDef } from '../resource.js';
import { defaultCronJob, defaultJob, defaultJobSelector } from '../defaults/batch.js';
import { validateCronJob, validateJob } from '../validation/batch.js';
import { cronJobPrinter, jobPrinter } from '../tables/batch.js';
import { typedDefaults } from './typed.js';

export const batchResources: ResourceDef[] = [
  { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', singular: 'job', namespaced: true, categories: ['all'], subresources: ['status'], generation: true, defaultPropagation: 'Orphan', emptyStatus: {},
    prepareCreate: (obj) => defaultJobSelector(obj), fieldSelectors: { 'status.successful': pathGetter('status.successful') },
    defaults: typedDefaults(defaultJob), validate: validateJob, table: jobPrinter },
  // A CronJob's name is at most 52 characters: its Jobs are named after it with an 11-character suffix.
  { group: 'batch', version: 'v1', kind: 'CronJob', plural: 'cronjobs', singular: 'cronjob', namespaced: true, shortNames: ['cj'], categories: ['all'], subresources: ['status'], generation: true, emptyStatus: {},
    maxNameLength: 52, defaults: typedDefaults(defaultCronJob), validate: validateCronJob, table: cronJobPrinter },
];
