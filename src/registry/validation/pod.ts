// Pod spec validation (core/validation ValidatePodSpec, trimmed to what everyday manifests hit).
import type { Pod } from '../../generated/k8s/core/v1.js';
import {
  invalid, fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotFound, fieldNotSupported, fieldRequired,
} from '../../machinery/errors.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import { hasOwn } from '../../util/own.js';
import { qosClass } from '../pod-qos.js';
import { arr, deepEqual, rec, str, validateAnnotations, validateLabels, validateNonNegative, type Errs } from './common.js';
import { inclusiveRangeError, isDns1123Label, isRelaxedEnvVarName, isValidPortName, nameIsDnsSubdomain } from '../../machinery/names.js';
import { validateEphemeralContainers } from './ephemeral-containers.js';
import { validateContainerResourceNames, validateResources } from './resource-requirements.js';
import { validateAffinity } from './affinity.js';
import { validateContainerLists, validatePodLists, validateTolerationKeys } from './pod-lists.js';
import { validateWorkloadRef } from './workload.js';

const validPort = (p: number) => Number.isInteger(p) && p >= 1 && p <= 65535;
const protocols = ['SCTP', 'TCP', 'UDP'];

/** A port given as number or IANA name (probes, service targetPort). */
export function validatePortNumOrName(v: unknown, path: string): Errs {
  if (typeof v === 'number') return validPort(v) ? [] : [fieldInvalid(path, v, inclusiveRangeError(1, 65535))];
  if (typeof v === 'string') {
    if (v === '') return [fieldRequired(path)];
    return isValidPortName(v).map((m) => fieldInvalid(path, v, m));
  }
  return [fieldRequired(path)];
}

const handlerKinds = ['exec', 'httpGet', 'tcpSocket', 'grpc'];

function validateProbe(probe: unknown, path: string, needsSuccessOne: boolean): Errs {
  const errs: Errs = [];
  if (!isRecord(probe)) return errs;
  const set = handlerKinds.filter((k) => probe[k] !== undefined && probe[k] !== null);
  if (set.length === 0) errs.push(fieldRequired(path, 'must specify a handler type'));
  for (const k of set.slice(1)) errs.push(fieldForbidden(`${path}.${k}`, 'may not specify more than 1 handler type'));
  for (const f of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    errs.push(...validateNonNegative(probe[f], `${path}.${f}`));
  }
  if (needsSuccessOne && typeof probe.successThreshold === 'number' && probe.successThreshold !== 1) {
    errs.push(fieldInvalid(`${path}.successThreshold`, probe.successThreshold, 'must be 1'));
  }
  if (isRecord(probe.httpGet)) {
    errs.push(...validatePortNumOrName(probe.httpGet.port, `${path}.httpGet.port`));
    const scheme = probe.httpGet.scheme;
    if (scheme !== undefined && scheme !== 'HTTP' && scheme !== 'HTTPS') errs.push(fieldNotSupported(`${path}.httpGet.scheme`, scheme, ['HTTP', 'HTTPS']));
  }
  if (isRecord(probe.tcpSocket)) errs.push(...validatePortNumOrName(probe.tcpSocket.port, `${path}.tcpSocket.port`));
  if (isRecord(probe.exec) && arr(probe.exec.command).length === 0) errs.push(fieldRequired(`${path}.exec.command`));
  return errs;
}

function validateEnv(env: unknown, path: string): Errs {
  const errs: Errs = [];
  arr(env).forEach((e, i) => {
    const r = rec(e);
    const p = `${path}[${i}]`;
    const name = str(r.name) ?? '';
    if (!name) errs.push(fieldRequired(`${p}.name`));
    else for (const m of isRelaxedEnvVarName(name)) errs.push(fieldInvalid(`${p}.name`, name, m));
    if (isRecord(r.valueFrom)) {
      if (str(r.value)) errs.push(fieldInvalid(`${p}.valueFrom`, '', 'may not be specified when `value` is not empty'));
      const sources = ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef', 'fileKeyRef'].filter((k) => isRecord(rec(r.valueFrom)[k]));
      if (sources.length === 0) errs.push(fieldInvalid(`${p}.valueFrom`, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
      else if (sources.length > 1) errs.push(fieldInvalid(`${p}.valueFrom`, '', 'may not have more than one field specified at a time'));
    }
  });
  return errs;
}

function validateContainer(c: unknown, path: string, volumes: Set<string>, init: boolean): Errs {
  const errs: Errs = [];
  const ctr = rec(c);
  const image = str(ctr.image) ?? '';
  if (!image) errs.push(fieldRequired(`${path}.image`));
  else if (image !== image.trim()) errs.push(fieldInvalid(`${path}.image`, image, 'must not have leading or trailing whitespace'));
  const pull = ctr.imagePullPolicy;
  if (pull === undefined || pull === '') errs.push(fieldRequired(`${path}.imagePullPolicy`));
  else if (!['Always', 'IfNotPresent', 'Never'].includes(pull as string)) errs.push(fieldNotSupported(`${path}.imagePullPolicy`, pull, ['Always', 'IfNotPresent', 'Never']));
  const tmp = ctr.terminationMessagePolicy;
  if (tmp !== undefined && tmp !== 'File' && tmp !== 'FallbackToLogsOnError') {
    errs.push(fieldNotSupported(`${path}.terminationMessagePolicy`, tmp, ['File', 'FallbackToLogsOnError']));
  }
  const portNames = new Set<string>();
  arr(ctr.ports).forEach((pt, i) => {
    const p = rec(pt);
    const pp = `${path}.ports[${i}]`;
    const name = str(p.name);
    if (name) {
      for (const m of isValidPortName(name)) errs.push(fieldInvalid(`${pp}.name`, name, m));
      if (portNames.has(name)) errs.push(fieldDuplicate(`${pp}.name`, name));
      portNames.add(name);
    }
    const cp = p.containerPort;
    if (cp === undefined || cp === 0) errs.push(fieldRequired(`${pp}.containerPort`));
    else if (typeof cp === 'number' && !validPort(cp)) errs.push(fieldInvalid(`${pp}.containerPort`, cp, inclusiveRangeError(1, 65535)));
    if (typeof p.hostPort === 'number' && p.hostPort !== 0 && !validPort(p.hostPort)) {
      errs.push(fieldInvalid(`${pp}.hostPort`, p.hostPort, inclusiveRangeError(1, 65535)));
    }
    if (p.protocol === undefined || p.protocol === '') errs.push(fieldRequired(`${pp}.protocol`));
    else if (!protocols.includes(p.protocol as string)) errs.push(fieldNotSupported(`${pp}.protocol`, p.protocol, protocols));
  });
  errs.push(...validateEnv(ctr.env, `${path}.env`));
  const mountPaths = new Set<string>();
  arr(ctr.volumeMounts).forEach((vm, i) => {
    const m = rec(vm);
    const mp = `${path}.volumeMounts[${i}]`;
    const name = str(m.name) ?? '';
    if (!name) errs.push(fieldRequired(`${mp}.name`));
    else if (!volumes.has(name)) errs.push(fieldNotFound(`${mp}.name`, name));
    const mount = str(m.mountPath) ?? '';
    if (!mount) errs.push(fieldRequired(`${mp}.mountPath`));
    else if (mountPaths.has(mount)) errs.push(fieldInvalid(`${mp}.mountPath`, mount, 'must be unique'));
    mountPaths.add(mount);
  });
  errs.push(...validateResources(ctr.resources, `${path}.resources`), ...validateContainerResourceNames(ctr.resources, `${path}.resources`));
  errs.push(...validateContainerLists(ctr, path));
  if (!init || ctr.restartPolicy === 'Always') {
    errs.push(...validateProbe(ctr.livenessProbe, `${path}.livenessProbe`, true));
    errs.push(...validateProbe(ctr.readinessProbe, `${path}.readinessProbe`, false));
    errs.push(...validateProbe(ctr.startupProbe, `${path}.startupProbe`, true));
  } else {
    for (const k of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
      if (ctr[k] !== undefined && ctr[k] !== null) errs.push(fieldForbidden(`${path}.${k}`, `may not be set for init containers without restartPolicy=Always`));
    }
  }
  return errs;
}

const restartPolicies = ['Always', 'OnFailure', 'Never'];
const dnsPolicies = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];

export function validatePodSpec(specIn: unknown, path: string): Errs {
  const errs: Errs = [];
  const spec = rec(specIn);
  const volumes = new Set<string>();
  arr(spec.volumes).forEach((v, i) => {
    const name = str(rec(v).name) ?? '';
    const vp = `${path}.volumes[${i}].name`;
    if (!name) errs.push(fieldRequired(vp));
    else {
      for (const m of isDns1123Label(name)) errs.push(fieldInvalid(vp, name, m));
      if (volumes.has(name)) errs.push(fieldDuplicate(vp, name));
    }
    volumes.add(name);
  });
  const names = new Set<string>();
  const checkName = (c: unknown, p: string) => {
    const name = str(rec(c).name) ?? '';
    if (!name) errs.push(fieldRequired(`${p}.name`));
    else {
      for (const m of isDns1123Label(name)) errs.push(fieldInvalid(`${p}.name`, name, m));
      if (names.has(name)) errs.push(fieldDuplicate(`${p}.name`, name));
    }
    names.add(name);
  };
  const containers = arr(spec.containers);
  if (containers.length === 0) errs.push(fieldRequired(`${path}.containers`));
  arr(spec.initContainers).forEach((c, i) => {
    const p = `${path}.initContainers[${i}]`;
    checkName(c, p);
    errs.push(...validateContainer(c, p, volumes, true));
  });
  containers.forEach((c, i) => {
    const p = `${path}.containers[${i}]`;
    checkName(c, p);
    errs.push(...validateContainer(c, p, volumes, false));
  });
  errs.push(...validateEphemeralContainers(spec.ephemeralContainers, `${path}.ephemeralContainers`, names, (c, p) => validateContainer(c, p, volumes, false)));
  const rp = spec.restartPolicy;
  if (rp === undefined || rp === '') errs.push(fieldRequired(`${path}.restartPolicy`));
  else if (!restartPolicies.includes(rp as string)) errs.push(fieldNotSupported(`${path}.restartPolicy`, rp, restartPolicies));
  const dp = spec.dnsPolicy;
  if (dp === undefined || dp === '') errs.push(fieldRequired(`${path}.dnsPolicy`));
  else if (!dnsPolicies.includes(dp as string)) errs.push(fieldNotSupported(`${path}.dnsPolicy`, dp, dnsPolicies));
  errs.push(...validateLabels(spec.nodeSelector, `${path}.nodeSelector`));
  errs.push(...validateAffinity(spec.affinity, `${path}.affinity`));
  errs.push(...validateTolerationKeys(spec.tolerations, `${path}.tolerations`), ...validatePodLists(spec, path));
  const ads = spec.activeDeadlineSeconds;
  if (typeof ads === 'number' && (ads < 1 || ads > 2147483647)) errs.push(fieldInvalid(`${path}.activeDeadlineSeconds`, ads, inclusiveRangeError(1, 2147483647)));
  errs.push(...validateWorkloadRef(spec.workloadRef, `${path}.workloadRef`));
  const sa = str(spec.serviceAccountName);
  if (sa) for (const m of nameIsDnsSubdomain(sa, false)) errs.push(fieldInvalid(`${path}.serviceAccountName`, sa, m));
  arr(spec.tolerations).forEach((t, i) => {
    const r = rec(t);
    const tp = `${path}.tolerations[${i}]`;
    if (r.operator !== undefined && r.operator !== '' && r.operator !== 'Equal' && r.operator !== 'Exists') {
      errs.push(fieldNotSupported(`${tp}.operator`, r.operator, ['Equal', 'Exists']));
    }
    if (r.operator === 'Exists' && str(r.value)) errs.push(fieldInvalid(`${tp}.operator`, r.operator, "value must be empty when `operator` is 'Exists'"));
    if (r.effect !== undefined && r.effect !== '' && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(r.effect as string)) {
      errs.push(fieldNotSupported(`${tp}.effect`, r.effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']));
    }
  });
  return errs;
}

/** A PodTemplateSpec: its metadata's labels and annotations, then its pod spec. */
export function validatePodTemplate(template: unknown, path: string): Errs {
  if (!isRecord(template)) return [fieldRequired(path)];
  const meta = rec(template.metadata);
  const errs = [
    ...validateLabels(meta.labels, `${path}.metadata.labels`),
    ...validateAnnotations(meta.annotations, `${path}.metadata.annotations`),
    ...validatePodSpec(template.spec, `${path}.spec`),
  ];
  if (arr(rec(template.spec).ephemeralContainers).length) errs.push(fieldForbidden(`${path}.spec.ephemeralContainers`, 'ephemeral containers not allowed in pod template'));
  return errs;
}

const podUpdateMessage = 'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,'
  + '`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),'
  + '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** Pod spec updates: only images, activeDeadlineSeconds, added tolerations and scheduling gate removal. */
export function validatePodSpecUpdate(spec: unknown, old: unknown): Errs {
  // A status write carries the stored spec over as it is.
  if (spec === old) return [];
  const unbound = !str(rec(old).nodeName);
  // Shallow views without the mutable fields: the rest is compared where it lies, nothing is copied deeply.
  const strip = (s: unknown) => {
    const view: Record<string, unknown> = { ...rec(s) };
    for (const k of mutableSpecFields) delete view[k];
    if (unbound) delete view.nodeName;
    for (const list of ['containers', 'initContainers']) {
      if (Array.isArray(view[list])) view[list] = (view[list] as unknown[]).map((c) => (isRecord(c) ? withoutImage(c) : c));
    }
    return view;
  };
  return deepEqual(strip(spec), strip(old)) ? [] : [fieldForbidden('spec', podUpdateMessage)];
}

const mutableSpecFields = ['activeDeadlineSeconds', 'tolerations', 'terminationGracePeriodSeconds', 'schedulingGates'];
function withoutImage(c: Record<string, unknown>): Record<string, unknown> {
  const { image: _image, ...rest } = c;
  return rest;
}

type Ctr = Record<string, unknown> & { name?: string; resources?: Record<string, unknown>; restartPolicy?: string; resizePolicy?: unknown };
const ctrs = (spec: unknown, list: 'containers' | 'initContainers') => arr(rec(spec)[list]) as Ctr[];

/**
 * The pods/resize write: the current pod with only the container resources (and resize policies) of the request,
 * matched by name; sidecar init containers are resizable too. Renamed or reordered containers are refused.
 */
export function resizedPod(cur: KObject, next: KObject): KObject {
  const result = structuredClone(cur);
  for (const list of ['containers', 'initContainers'] as const) {
    const wanted = ctrs(next.spec, list);
    const have = ctrs(result.spec, list);
    if (wanted.length && wanted.map((c) => c.name).join('\u0000') !== have.map((c) => c.name).join('\u0000')) {
      throw invalid('Pod', '', cur.metadata.name ?? '', [fieldForbidden(`spec.${list}`, 'containers may not be renamed or reordered on resize')]);
    }
    wanted.forEach((w, i) => {
      const c = have[i];
      if (w.resources === undefined || (isRecord(w.resources) && Object.keys(w.resources).length === 0)) delete c.resources;
      else c.resources = structuredClone(w.resources);
      if (w.resizePolicy !== undefined) c.resizePolicy = structuredClone(w.resizePolicy);
    });
  }
  return result;
}

const resizable = new Set(['cpu', 'memory']);

function withoutCpuMemory(spec: unknown): unknown {
  const copy = structuredClone(rec(spec));
  for (const list of ['containers', 'initContainers'] as const) {
    for (const c of ctrs(copy, list)) {
      const r = rec(c.resources);
      for (const kind of ['requests', 'limits']) {
        const m = rec(r[kind]);
        for (const k of Object.keys(m)) if (resizable.has(k)) delete m[k];
        if (Object.keys(m).length === 0) delete r[kind];
        else r[kind] = m;
      }
      if (Object.keys(r).length === 0) delete c.resources;
      else c.resources = r;
      delete c.resizePolicy;
    }
  }
  return copy;
}

/** ValidatePodResize: only cpu and memory of regular and sidecar containers change, none removed, same QoS class. */
export function validatePodResize(pod: KObject, old: KObject): Errs {
  const errs: Errs = [];
  const check = (list: 'containers' | 'initContainers') => {
    const olds = ctrs(old.spec, list);
    ctrs(pod.spec, list).forEach((c, i) => {
      const path = `spec.${list}[${i}].resources`;
      const before = olds[i];
      if (list === 'initContainers' && c.restartPolicy !== 'Always') {
        if (!deepEqual(c.resources ?? {}, before?.resources ?? {})) errs.push(fieldForbidden(path, 'resources for non-sidecar init containers are immutable'));
        return;
      }
      errs.push(...validateResources(c.resources, path));
      const now = rec(c.resources);
      const was = rec(before?.resources);
      for (const [kind, word] of [['requests', 'requests'], ['limits', 'limits']] as const) {
        for (const k of Object.keys(rec(was[kind]))) {
          if (resizable.has(k) && !hasOwn(rec(now[kind]), k)) errs.push(fieldForbidden(`${path}.${kind}[${k}]`, `resource ${word} cannot be removed`));
        }
      }
    });
  };
  check('containers');
  check('initContainers');
  if (!deepEqual(withoutCpuMemory(pod.spec), withoutCpuMemory(old.spec))) errs.push(fieldForbidden('spec', 'only cpu and memory resources are mutable'));
  const oldQos = str(rec(old.status).qosClass) ?? qosClass(old);
  if (errs.length === 0 && qosClass(pod) !== oldQos) {
    errs.push(fieldInvalid('spec', oldQos, 'Pod QOS Class may not change as a result of resizing'));
  }
  return errs;
}
