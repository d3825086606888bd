// The objects a learner expects in kube-system, as kubeadm installs them: CoreDNS (ConfigMap, ServiceAccount,
// Deployment of 2, Service kube-dns at 10.96.0.10), kube-proxy (ServiceAccount, ConfigMap, DaemonSet), and the
// control-plane components as mirror pods of static pods. Every pod carries `bonsai.dev/system-pod: "true"`: the
// scheduler leaves such kube-system pods out of node accounting, so user pods schedule exactly as without them.
import type { KObject } from '../machinery/types.js';
import { createHash } from 'node:crypto';
import { controlPlaneIP } from '../kubelet/pod-ips.js';

export const systemPodAnnotation = 'bonsai.dev/system-pod';
export const kubeVersion = 'v1.35.0';
export const dnsClusterIP = '10.96.0.10';

const corefile = `.:53 {
    errors
    health {
       lameduck 5s
    }
    ready
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus :9153
    forward . /etc/resolv.conf {
       max_concurrent 1000
    }
    cache 30
    loop
    reload
    loadbalance
}
`;

const obj = (apiVersion: string, kind: string, name: string, rest: Record<string, unknown>, labels?: Record<string, string>): KObject =>
  ({ apiVersion, kind, metadata: { name, namespace: 'kube-system', ...(labels ? { labels } : {}) }, ...rest }) as KObject;

/** ConfigMaps, ServiceAccounts, the kube-dns Service, the CoreDNS Deployment and the kube-proxy DaemonSet, in creation order. */
export function addonObjects(): Array<{ resource: string; object: KObject }> {
  const dnsLabels = { 'k8s-app': 'kube-dns' };
  const coredns = {
    metadata: { labels: dnsLabels, annotations: { [systemPodAnnotation]: 'true' } },
    spec: {
      priorityClassName: 'system-cluster-critical',
      serviceAccountName: 'coredns',
      tolerations: [{ key: 'CriticalAddonsOnly', operator: 'Exists' }, { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      dnsPolicy: 'Default',
      containers: [{
        name: 'coredns', image: 'registry.k8s.io/coredns/coredns:v1.12.0', imagePullPolicy: 'IfNotPresent',
        args: ['-conf', '/etc/coredns/Corefile'],
        ports: [{ name: 'dns', containerPort: 53, protocol: 'UDP' }, { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' }, { name: 'metrics', containerPort: 9153, protocol: 'TCP' }],
        volumeMounts: [{ name: 'config-volume', mountPath: '/etc/coredns', readOnly: true }],
        livenessProbe: { httpGet: { path: '/health', port: 8080, scheme: 'HTTP' }, initialDelaySeconds: 60, timeoutSeconds: 5, successThreshold: 1, failureThreshold: 5 },
        readinessProbe: { httpGet: { path: '/ready', port: 8181, scheme: 'HTTP' } },
        securityContext: { allowPrivilegeEscalation: false, capabilities: { add: ['NET_BIND_SERVICE'], drop: ['ALL'] }, readOnlyRootFilesystem: true },
      }],
      volumes: [{ name: 'config-volume', configMap: { name: 'coredns', items: [{ key: 'Corefile', path: 'Corefile' }] } }],
    },
  };
  const proxyLabels = { 'k8s-app': 'kube-proxy' };
  const proxy = {
    metadata: { labels: proxyLabels, annotations: { [systemPodAnnotation]: 'true' } },
    spec: {
      priorityClassName: 'system-node-critical',
      serviceAccountName: 'kube-proxy',
      hostNetwork: true,
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      tolerations: [{ operator: 'Exists' }],
      containers: [{
        name: 'kube-proxy', image: `registry.k8s.io/kube-proxy:${kubeVersion}`, imagePullPolicy: 'IfNotPresent',
        command: ['/usr/local/bin/kube-proxy', '--config=/var/lib/kube-proxy/config.conf', '--hostname-override=$(NODE_NAME)'],
        env: [{ name: 'NODE_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } }],
        securityContext: { privileged: true },
        volumeMounts: [{ name: 'kube-proxy', mountPath: '/var/lib/kube-proxy' }],
      }],
      volumes: [{ name: 'kube-proxy', configMap: { name: 'kube-proxy' } }],
    },
  };
  return [
    { resource: 'v1/configmaps', object: obj('v1', 'ConfigMap', 'coredns', { data: { Corefile: corefile } }) },
    { resource: 'v1/configmaps', object: obj('v1', 'ConfigMap', 'kube-proxy', { data: { 'config.conf': 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: 10.244.0.0/16\nmode: iptables\n' } }, { app: 'kube-proxy' }) },
    { resource: 'v1/serviceaccounts', object: obj('v1', 'ServiceAccount', 'coredns', {}) },
    { resource: 'v1/serviceaccounts', object: obj('v1', 'ServiceAccount', 'kube-proxy', {}) },
    {
      resource: 'v1/services',
      object: obj('v1', 'Service', 'kube-dns', {
        metadata: {
          name: 'kube-dns', namespace: 'kube-system',
          labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/cluster-service': 'true', 'kubernetes.io/name': 'CoreDNS' },
          annotations: { 'prometheus.io/port': '9153', 'prometheus.io/scrape': 'true' },
        },
        spec: {
          selector: dnsLabels, clusterIP: dnsClusterIP, clusterIPs: [dnsClusterIP], type: 'ClusterIP', sessionAffinity: 'None',
          ports: [{ name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 }, { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 }, { name: 'metrics', port: 9153, protocol: 'TCP', targetPort: 9153 }],
        },
      }),
    },
    {
      resource: 'apps/v1/deployments',
      object: obj('apps/v1', 'Deployment', 'coredns', {
        spec: { replicas: 2, selector: { matchLabels: dnsLabels }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } }, template: coredns },
      }, dnsLabels),
    },
    {
      resource: 'apps/v1/daemonsets',
      object: obj('apps/v1', 'DaemonSet', 'kube-proxy', {
        spec: { selector: { matchLabels: proxyLabels }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1 } }, template: proxy },
      }, proxyLabels),
    },
  ];
}

interface Component {
  name: string;
  image: string;
  command: string[];
}

const components: Component[] = [
  { name: 'etcd', image: 'registry.k8s.io/etcd:3.6.5-0', command: ['etcd', `--advertise-client-urls=https://${controlPlaneIP}:2379`, '--data-dir=/var/lib/etcd', `--listen-client-urls=https://127.0.0.1:2379,https://${controlPlaneIP}:2379`, '--name=control-plane'] },
  { name: 'kube-apiserver', image: `registry.k8s.io/kube-apiserver:${kubeVersion}`, command: ['kube-apiserver', `--advertise-address=${controlPlaneIP}`, '--authorization-mode=Node,RBAC', '--etcd-servers=https://127.0.0.1:2379', '--secure-port=6443', '--service-cluster-ip-range=10.96.0.0/12'] },
  { name: 'kube-controller-manager', image: `registry.k8s.io/kube-controller-manager:${kubeVersion}`, command: ['kube-controller-manager', '--allocate-node-cidrs=true', '--cluster-cidr=10.244.0.0/16', '--leader-elect=true', '--use-service-account-credentials=true'] },
  { name: 'kube-scheduler', image: `registry.k8s.io/kube-scheduler:${kubeVersion}`, command: ['kube-scheduler', '--authentication-kubeconfig=/etc/kubernetes/scheduler.conf', '--leader-elect=true'] },
];

export const mirrorPodNames = (node: string) => components.map((c) => `${c.name}-${node}`);

/** The mirror pods the kubelet of `node` creates for its static control-plane pods. */
export function mirrorPods(node: { name: string; uid: string }, seenAt: string): KObject[] {
  return components.map((c) => {
    const hash = createHash('sha256').update(`${c.name}/${node.name}/${c.image}`).digest('hex').slice(0, 32);
    return {
      apiVersion: 'v1', kind: 'Pod',
      metadata: {
        name: `${c.name}-${node.name}`, namespace: 'kube-system',
        labels: { component: c.name, tier: 'control-plane' },
        annotations: {
          'kubernetes.io/config.hash': hash, 'kubernetes.io/config.mirror': hash, 'kubernetes.io/config.seen': seenAt,
          'kubernetes.io/config.source': 'file', [systemPodAnnotation]: 'true',
        },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.name, uid: node.uid, controller: true }],
      },
      spec: {
        nodeName: node.name, hostNetwork: true, priorityClassName: 'system-node-critical', priority: 2000001000,
        tolerations: [{ operator: 'Exists', effect: 'NoExecute' }],
        containers: [{ name: c.name, image: c.image, imagePullPolicy: 'IfNotPresent', command: c.command }],
      },
    };
  });
}
