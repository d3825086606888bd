// Every served resource, declared once.
import type { ResourceDef } from '../resource.js';
import { coreResources } from './core.js';
import { appsResources } from './apps.js';
import { batchResources } from './batch.js';
import { otherResources } from './others.js';
import { certificateResources } from './certificates.js';
import { apiServices } from './apiservices.js';
import { admissionRegistrationResources } from './admissionregistration.js';
import { workloads } from './workloads.js';
import { flowcontrolResources } from './flowcontrol.js';
import { draResources } from './resource-dra.js';
import { customResourceDefinitions } from '../../apiextensions/crd-resource.js';

export const allResources: ResourceDef[] = [
  ...coreResources, ...appsResources, ...batchResources, ...otherResources, ...certificateResources, ...admissionRegistrationResources,
  ...flowcontrolResources, ...draResources, workloads, apiServices, customResourceDefinitions,
];
