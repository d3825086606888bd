// Validation gaps of issue 9 with upstream's messages: request options, node affinity operators, node ports,
// quantities beyond a float64.
import { CMS, DEPLOYS, NS, PODS, uniq, type HostileCase } from './hostile-cases.js';
import { deployment, richPod } from './hostile-sweeps.js';

const JSON_CT = { 'content-type': 'application/json' };
const APPLY_CT = { 'content-type': 'application/apply-patch+yaml' };
const SERVICES = `/api/v1/namespaces/${NS}/services`;

const service = (name: string, nodePort: number) => JSON.stringify({
  apiVersion: 'v1', kind: 'Service', metadata: { name },
  spec: { type: 'NodePort', selector: { app: 'x' }, ports: [{ port: 80, nodePort }] },
});

function withAffinity(operator: string): { pod: string; deploy: string } {
  const pod = richPod(uniq('aff')) as Record<string, Record<string, unknown>>;
  pod.spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator, values: ['a'] }] }] } } };
  const d = deployment(uniq('aff')) as Record<string, Record<string, Record<string, Record<string, unknown>>>>;
  d.spec.template.spec.affinity = { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: 'zone', operator, values: ['a'] }] } }] } };
  return { pod: JSON.stringify(pod), deploy: JSON.stringify(d) };
}

export function validationGapCases(): HostileCase[] {
  const target = `${CMS}/target`;
  const applied = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"target"}}';
  const bad = withAffinity('Foo');
  const good = withAffinity('NotIn');
  const taken = uniq('np');
  return [
    { name: 'apply without fieldManager', method: 'PATCH', path: target, headers: APPLY_CT, body: applied, expectCode: 422,
      expectMessage: /^PatchOptions\.meta\.k8s\.io "" is invalid: fieldManager: Required value: is required for apply patch$/ },
    { name: 'fieldManager over 128 bytes', method: 'PATCH', path: `${target}?fieldManager=${encodeURIComponent('é'.repeat(65))}`, headers: APPLY_CT, body: applied, expectCode: 422,
      expectMessage: /^PatchOptions\.meta\.k8s\.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes$/ },
    { name: 'fieldManager with a control character', method: 'PATCH', path: `${target}?fieldManager=a%00b`, headers: APPLY_CT, body: applied, expectCode: 422,
      expectMessage: /fieldManager: Invalid value: "a\\x00b": invalid character U\+0000 \(at position 1\)$/ },
    { name: 'force on a merge patch', method: 'PATCH', path: `${target}?force=true`, headers: { 'content-type': 'application/merge-patch+json' }, body: '{}', expectCode: 422,
      expectMessage: /^PatchOptions\.meta\.k8s\.io "" is invalid: force: Forbidden: may not be specified for non-apply patch$/ },
    { name: 'unknown node affinity operator in a pod', method: 'POST', path: PODS, headers: JSON_CT, body: bad.pod, expectCode: 422,
      expectMessage: /spec\.affinity\.nodeAffinity\.requiredDuringSchedulingIgnoredDuringExecution\.nodeSelectorTerms\[0\]\.matchExpressions\[0\]\.operator: Invalid value: "Foo": not a valid selector operator/ },
    { name: 'unknown node affinity operator in a template', method: 'POST', path: DEPLOYS, headers: JSON_CT, body: bad.deploy, expectCode: 422,
      expectMessage: /spec\.template\.spec\.affinity\.nodeAffinity\.preferredDuringSchedulingIgnoredDuringExecution\[0\]\.preference\.matchExpressions\[0\]\.operator: Invalid value: "Foo": not a valid selector operator/ },
    { name: 'known node affinity operator in a pod', method: 'POST', path: PODS, headers: JSON_CT, body: good.pod, expectCode: 201 },
    { name: 'known node affinity operator in a template', method: 'POST', path: DEPLOYS, headers: JSON_CT, body: good.deploy, expectCode: 201 },
    { name: 'node port 1', method: 'POST', path: SERVICES, headers: JSON_CT, body: service(uniq('np'), 1), expectCode: 422,
      expectMessage: /spec\.ports\[0\]\.nodePort: Invalid value: 1: provided port is not in the valid range\. The range of valid ports is 30000-32767$/ },
    { name: 'node port 70000', method: 'POST', path: SERVICES, headers: JSON_CT, body: service(uniq('np'), 70000), expectCode: 422, expectMessage: /must be between 1 and 65535, inclusive/ },
    { name: 'node port 30999', method: 'POST', path: SERVICES, headers: JSON_CT, body: service(taken, 30999), expectCode: 201 },
    { name: 'node port 30999 again', method: 'POST', path: SERVICES, headers: JSON_CT, body: service(uniq('np'), 30999), expectCode: 422, expectMessage: /provided port is already allocated/ },
    { name: 'cpu 1e400', method: 'POST', path: PODS, headers: JSON_CT, body: JSON.stringify({ ...richPod(uniq('q')), spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu: '1e400' } } }] } }),
      expectCode: 400, expectMessage: /unable to parse quantity's numeric part/ },
    { name: 'cpu 1e400 as a JSON number', method: 'POST', path: PODS, headers: JSON_CT, body: `{"metadata":{"name":"${uniq('q')}"},"spec":{"containers":[{"name":"c","image":"nginx","resources":{"limits":{"cpu":1e400}}}]}}`,
      expectCode: 400, expectMessage: /cannot unmarshal number 1e400/ },
  ];
}
