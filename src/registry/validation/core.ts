// core/v1 validation: Pod, PodTemplate, ReplicationController, Service, ConfigMap, Secret, PVC (trimmed).
import {
  fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong,
} from '../../machinery/errors.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import { hasOwn } from '../../util/own.js';
import { arr, deepEqual, immutable, qualifiedNameErrors, rec, sortedMap, str, validateLabels, validateNonNegative, type Errs } from './common.js';
import { inclusiveRangeError, invalidIpError, isConfigMapKey, isDns1123Label, isDns1123Subdomain, isIp, isQualifiedName } from '../../machinery/names.js';
import { validatePodSpec, validatePodSpecUpdate, validatePodTemplate, validatePortNumOrName } from './pod.js';
import { validateResources } from './resource-requirements.js';
import { validatePodClaimStatuses } from './pod-claims.js';

const systemPodConditions = new Set(['PodScheduled', 'Ready', 'Initialized']);

export function validatePod(obj: KObject, old: KObject | undefined): Errs {
  // A status write keeps the stored spec (the same object): as upstream's ValidatePodStatusUpdate, it is not validated again.
  const specKept = old !== undefined && obj.spec === old.spec && obj.spec !== undefined;
  const errs = specKept ? [] : validatePodSpec(obj.spec, 'spec');
  // Ephemeral containers are added to a running pod through pods/ephemeralcontainers only.
  if (!old && arr(rec(obj.spec).ephemeralContainers).length) errs.push(fieldForbidden('spec.ephemeralContainers', 'cannot be set on create'));
  if (old) {
    if (!specKept) errs.push(...validatePodSpecUpdate(obj.spec, old.spec));
    errs.push(...validatePodClaimStatuses(obj.spec, obj.status));
    // validatePodConditions: condition types other than the system ones are qualified names.
    // Every status write passes here: the field path is spelled out only for a condition in error.
    const conditions = arr(rec(obj.status).conditions);
    for (let i = 0; i < conditions.length; i++) {
      const type = str(rec(conditions[i]).type) ?? '';
      if (systemPodConditions.has(type) || isQualifiedName(type).length === 0) continue;
      errs.push(...qualifiedNameErrors(type, `status.conditions[${i}].type`));
    }
  }
  return errs;
}

export function validatePodTemplateKind(obj: KObject): Errs {
  return validatePodTemplate(obj.template, 'template');
}

export function validateReplicationController(obj: KObject): Errs {
  const spec = rec(obj.spec);
  const errs: Errs = [...validateNonNegative(spec.replicas, 'spec.replicas'), ...validateNonNegative(spec.minReadySeconds, 'spec.minReadySeconds')];
  const selector = rec(spec.selector);
  if (Object.keys(selector).length === 0) errs.push(fieldRequired('spec.selector'));
  else errs.push(...validateLabels(selector, 'spec.selector'));
  if (!isRecord(spec.template)) return [...errs, fieldRequired('spec.template')];
  const labels = rec(rec(spec.template.metadata).labels);
  if (Object.entries(selector).some(([k, v]) => labels[k] !== v)) {
    errs.push(fieldInvalid('spec.template.metadata.labels', sortedMap(labels), '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplate(spec.template, 'spec.template'));
  const rp = rec(spec.template.spec).restartPolicy;
  if (rp !== undefined && rp !== 'Always') errs.push(fieldNotSupported('spec.template.spec.restartPolicy', rp, ['Always']));
  return errs;
}

const serviceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

export function validateService(obj: KObject, old: KObject | undefined): Errs {
  const errs: Errs = [];
  const spec = rec(obj.spec);
  const type = spec.type;
  if (!type) errs.push(fieldRequired('spec.type'));
  else if (!serviceTypes.includes(type as string)) errs.push(fieldNotSupported('spec.type', type, serviceTypes));
  const clusterIP = str(spec.clusterIP) ?? '';
  const headless = clusterIP === 'None';
  const ports = arr(spec.ports);
  if (type === 'ExternalName') {
    const en = str(spec.externalName) ?? '';
    if (!en) errs.push(fieldRequired('spec.externalName'));
    else for (const m of isDns1123Subdomain(en.endsWith('.') ? en.slice(0, -1) : en)) errs.push(fieldInvalid('spec.externalName', en, m));
    if (clusterIP) errs.push(fieldForbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
  } else if (ports.length === 0 && !headless) {
    errs.push(fieldRequired('spec.ports'));
  }
  if (clusterIP && !headless && !isIp(clusterIP)) {
    errs.push(fieldInvalid('spec.clusterIPs[0]', clusterIP, invalidIpError));
  }
  const names = new Set<string>();
  const seen = new Set<string>();
  ports.forEach((pt, i) => {
    const p = rec(pt);
    const pp = `spec.ports[${i}]`;
    const name = str(p.name) ?? '';
    if (ports.length > 1 && !name) errs.push(fieldRequired(`${pp}.name`));
    if (name) {
      for (const m of isDns1123Label(name)) errs.push(fieldInvalid(`${pp}.name`, name, m));
      if (names.has(name)) errs.push(fieldDuplicate(`${pp}.name`, name));
      names.add(name);
    }
    const port = p.port;
    if (typeof port !== 'number' || port < 1 || port > 65535) errs.push(fieldInvalid(`${pp}.port`, port ?? 0, inclusiveRangeError(1, 65535)));
    const protocol = p.protocol;
    if (!protocol) errs.push(fieldRequired(`${pp}.protocol`));
    else if (!['SCTP', 'TCP', 'UDP'].includes(protocol as string)) errs.push(fieldNotSupported(`${pp}.protocol`, protocol, ['SCTP', 'TCP', 'UDP']));
    if (p.targetPort !== undefined) errs.push(...validatePortNumOrName(p.targetPort, `${pp}.targetPort`));
    const np = p.nodePort;
    if (typeof np === 'number' && np !== 0) {
      if (type === 'ClusterIP' || type === 'ExternalName') errs.push(fieldForbidden(`${pp}.nodePort`, `may not be used when \`type\` is '${String(type)}'`));
      else if (np < 1 || np > 65535) errs.push(fieldInvalid(`${pp}.nodePort`, np, inclusiveRangeError(1, 65535)));
    }
    const key = `${String(port)}/${String(protocol)}`;
    if (seen.has(key)) errs.push(fieldDuplicate(pp, { port, protocol }));
    seen.add(key);
  });
  const affinity = spec.sessionAffinity;
  if (!affinity) errs.push(fieldRequired('spec.sessionAffinity'));
  else if (affinity !== 'ClientIP' && affinity !== 'None') errs.push(fieldNotSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  errs.push(...validateLabels(spec.selector, 'spec.selector'));
  const etp = spec.externalTrafficPolicy;
  if (etp !== undefined && etp !== '') {
    if (type !== 'NodePort' && type !== 'LoadBalancer' && arr(spec.externalIPs).length === 0) {
      errs.push(fieldInvalid('spec.externalTrafficPolicy', etp, "may only be set for externally-accessible services"));
    } else if (etp !== 'Cluster' && etp !== 'Local') errs.push(fieldNotSupported('spec.externalTrafficPolicy', etp, ['Cluster', 'Local']));
  }
  if (old) {
    const prev = rec(old.spec);
    const oldIPs = arr(prev.clusterIPs).length ? arr(prev.clusterIPs) : str(prev.clusterIP) ? [prev.clusterIP] : [];
    const newIPs = arr(spec.clusterIPs).length ? arr(spec.clusterIPs) : clusterIP ? [clusterIP] : [];
    if (prev.type !== 'ExternalName' && type !== 'ExternalName' && oldIPs.length > 0) {
      if (newIPs.length === 0) errs.push(fieldInvalid('spec.clusterIPs[0]', newIPs, 'primary clusterIP can not be unset'));
      else if (newIPs[0] !== oldIPs[0]) errs.push(fieldInvalid('spec.clusterIPs[0]', newIPs, 'may not change once set'));
    }
  }
  return errs;
}

const maxDataBytes = 1024 * 1024;
/** Most keys: short, not starting with a dot, of the config-key characters (isConfigMapKey has nothing to say). */
const plainKey = (k: string) => k.length <= 253 && k.charCodeAt(0) !== 46 && /^[-._a-zA-Z0-9]+$/.test(k);

/** Keys and total size of a ConfigMap's data and binaryData, or of a Secret's data (its stringData is merged in before). */
/** The keys and total size of a ConfigMap's or Secret's data: also run where large bodies are decoded (api/body-precheck.ts). */
export function validateDataKeys(obj: KObject, kind: 'ConfigMap' | 'Secret'): Errs {
  const errs: Errs = [];
  let total = 0;
  const data = rec(obj.data);
  const binary = kind === 'ConfigMap' ? rec(obj.binaryData) : {};
  for (const [field, map] of [['data', data], ['binaryData', binary]] as const) {
    for (const [k, v] of Object.entries(map)) {
      if (!plainKey(k)) for (const m of isConfigMapKey(k)) errs.push(fieldInvalid(`${field}[${k}]`, k, m));
      total += k.length + (typeof v === 'string' ? (kind === 'Secret' ? Math.floor((v.length * 3) / 4) : Buffer.byteLength(v)) : 0);
    }
  }
  for (const k of Object.keys(binary)) if (hasOwn(data, k)) errs.push(fieldInvalid(`data[${k}]`, k, 'duplicate of key present in binaryData'));
  if (total > maxDataBytes) errs.push(fieldTooLong(kind === 'ConfigMap' ? '' : 'data', '', maxDataBytes));
  return errs;
}

function validateImmutableData(obj: KObject, old: KObject, fields: string[]): Errs {
  if (old.immutable !== true) return [];
  const errs: Errs = [];
  if (obj.immutable !== true) errs.push(fieldForbidden('immutable', 'field is immutable when `immutable` is set'));
  for (const f of fields) if (!deepEqual(obj[f], old[f])) errs.push(fieldForbidden(f, 'field is immutable when `immutable` is set'));
  return errs;
}

export function validateConfigMap(obj: KObject, old: KObject | undefined): Errs {
  return [...validateDataKeys(obj, 'ConfigMap'), ...(old ? validateImmutableData(obj, old, ['data', 'binaryData']) : [])];
}

export function validateSecret(obj: KObject, old: KObject | undefined): Errs {
  const errs = validateDataKeys(obj, 'Secret');
  const data = rec(obj.data);
  const type = str(obj.type) ?? '';
  const need = (k: string) => { if (!hasOwn(data, k)) errs.push(fieldRequired(`data[${k}]`)); };
  if (type === 'kubernetes.io/tls') { need('tls.crt'); need('tls.key'); }
  if (type === 'kubernetes.io/dockerconfigjson') need('.dockerconfigjson');
  if (type === 'kubernetes.io/dockercfg') need('.dockercfg');
  if (type === 'kubernetes.io/basic-auth' && !hasOwn(data, 'username') && !hasOwn(data, 'password')) {
    errs.push(fieldRequired('data[username]'), fieldRequired('data[password]'));
  }
  if (type === 'kubernetes.io/ssh-auth') need('ssh-privatekey');
  if (type === 'kubernetes.io/service-account-token' && !str(rec(obj.metadata?.annotations)['kubernetes.io/service-account.name'])) {
    errs.push(fieldRequired('metadata.annotations[kubernetes.io/service-account.name]'));
  }
  if (old) {
    if (!deepEqual(obj.type, old.type)) errs.push(fieldInvalid('type', obj.type ?? '', immutable));
    errs.push(...validateImmutableData(obj, old, ['data']));
  }
  return errs;
}

const accessModes = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];

export function validatePvcSpec(specIn: unknown, path: string): Errs {
  const errs: Errs = [];
  const spec = rec(specIn);
  const modes = arr(spec.accessModes);
  if (modes.length === 0) errs.push(fieldRequired(`${path}.accessModes`, 'at least 1 access mode is required'));
  for (const m of modes) if (!accessModes.includes(m as string)) errs.push(fieldNotSupported(`${path}.accessModes`, m, accessModes));
  if (modes.includes('ReadWriteOncePod') && modes.length > 1) {
    errs.push(fieldForbidden(`${path}.accessModes`, 'may not use ReadWriteOncePod with other access modes'));
  }
  const requests = rec(rec(spec.resources).requests);
  if (!spec.dataSource && !spec.dataSourceRef && !hasOwn(requests, 'storage')) errs.push(fieldRequired(`${path}.resources[storage]`));
  errs.push(...validateResources(spec.resources, `${path}.resources`));
  const vm = spec.volumeMode;
  if (vm !== undefined && vm !== 'Block' && vm !== 'Filesystem') errs.push(fieldNotSupported(`${path}.volumeMode`, vm, ['Block', 'Filesystem']));
  return errs;
}

export function validatePvc(obj: KObject, old: KObject | undefined): Errs {
  const errs = validatePvcSpec(obj.spec, 'spec');
  if (old) {
    const strip = (s: unknown) => {
      const c = structuredClone(rec(s));
      delete c.volumeAttributesClassName;
      if (isRecord(c.resources)) delete c.resources.requests;
      if (!str(rec(old.spec).volumeName)) delete c.volumeName;
      // A claim without a class may get the default one later (retroactive default StorageClass assignment).
      if (rec(old.spec).storageClassName == null) delete c.storageClassName;
      return c;
    };
    if (!deepEqual(strip(obj.spec), strip(old.spec))) {
      errs.push(fieldForbidden('spec', 'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims'));
    }
  }
  return errs;
}

export function validateNamespace(obj: KObject): Errs {
  const errs: Errs = [];
  arr(rec(obj.spec).finalizers).forEach((f) => {
    if (typeof f !== 'string' || !f) errs.push(fieldRequired('spec.finalizers'));
  });
  return errs;
}
