// The tags the simulated registry knows for well-known images: what learners and the Kubernetes documentation
// pull. A repository listed here refuses any other tag (as the real registry would); repositories not listed
// pull whatever tag they are given. Version ranges are expanded: `v('1.25', 5)` is 1.25, 1.25.0 … 1.25.5.

/** `1.25` and `1.25.0` … `1.25.<patches>`. */
function v(minor: string, patches: number): string[] {
  return [minor, ...Array.from({ length: patches + 1 }, (_, i) => `${minor}.${i}`)];
}

/** Every tag with each suffix appended (the empty suffix keeps the plain tag). */
function variants(tags: string[], suffixes: string[]): string[] {
  return tags.flatMap((t) => suffixes.map((s) => (t === '' ? s.replace(/^-/, '') : `${t}${s}`))).filter((t) => t !== '');
}

const nginxVersions = [
  '1', '1.7.9', '1.9.1', '1.10', '1.10.3', '1.12', '1.12.2', '1.14', '1.14.0', '1.14.1', '1.14.2', '1.15', '1.15.12',
  '1.16', '1.16.0', '1.16.1', '1.17', '1.17.10', '1.18', '1.18.0', '1.19', '1.19.10', '1.20', '1.20.2', '1.21', '1.21.6',
  '1.22', '1.22.1', '1.23', '1.23.4', ...v('1.24', 0), ...v('1.25', 5), ...v('1.26', 3), ...v('1.27', 5), ...v('1.28', 0), ...v('1.29', 3),
];

export const knownImages: Record<string, string[]> = {
  'docker.io/library/nginx': [
    'latest', 'stable', 'mainline', 'alpine', 'alpine-slim', 'perl', 'stable-alpine', 'mainline-alpine', 'stable-perl', 'bookworm',
    ...variants(nginxVersions, ['', '-alpine', '-perl', '-alpine-slim', '-bookworm']),
  ],
  'docker.io/library/busybox': ['latest', 'stable', 'musl', 'glibc', 'uclibc', ...variants(['1', '1.28', '1.28.4', '1.31', '1.31.1', '1.32', '1.33', '1.34', '1.34.1', '1.35', '1.35.0', '1.36', '1.36.0', '1.36.1', '1.37', '1.37.0'], ['', '-musl', '-glibc', '-uclibc'])],
  'docker.io/library/alpine': ['latest', 'edge', '3', ...v('3.16', 9), ...v('3.17', 10), ...v('3.18', 12), ...v('3.19', 8), ...v('3.20', 7), ...v('3.21', 4), ...v('3.22', 2)],
  'docker.io/library/ubuntu': ['latest', 'rolling', 'devel', 'focal', 'jammy', 'noble', 'oracular', 'plucky', '18.04', '20.04', '22.04', '24.04', '24.10', '25.04', 'bionic'],
  'docker.io/library/debian': ['latest', 'stable', 'stable-slim', 'testing', 'unstable', ...variants(['bookworm', 'bullseye', 'buster', 'trixie', '10', '11', '12', '13'], ['', '-slim'])],
  'docker.io/library/python': ['latest', 'slim', 'alpine', ...variants(['3', '3.8', '3.9', '3.10', '3.11', '3.12', '3.13', '3.14'], ['', '-slim', '-alpine', '-bookworm', '-slim-bookworm'])],
  'docker.io/library/node': ['latest', 'lts', 'current', 'alpine', 'slim', ...variants(['16', '18', '20', '22', '24', 'lts'], ['', '-alpine', '-slim', '-bookworm'])],
  'docker.io/library/redis': ['latest', 'alpine', ...variants(['5', '5.0.4', '6', '6.2', '7', '7.0', '7.2', '7.4', '8', '8.0', '8.2'], ['', '-alpine', '-bookworm'])],
  'docker.io/library/postgres': ['latest', 'alpine', ...variants(['12', '13', '14', '15', '16', '17', '18'], ['', '-alpine', '-bookworm'])],
  'docker.io/library/httpd': ['latest', 'alpine', ...variants(['2', '2.4', '2.4.62', '2.4.63', '2.4.65'], ['', '-alpine'])],
  'docker.io/library/perl': ['latest', 'slim', 'threaded', ...variants(['5', '5.30', '5.32', '5.34', '5.34.0', '5.36', '5.38', '5.40', '5.42'], ['', '-slim', '-threaded'])],
  'docker.io/library/mysql': ['latest', '5.7', '8', '8.0', '8.4', '9'],
  'registry.k8s.io/pause': ['latest', '3.1', '3.2', '3.5', '3.6', '3.7', '3.8', '3.9', '3.10', '3.10.1'],
  'registry.k8s.io/busybox': ['latest', '1.24', '1.27.2'],
  'registry.k8s.io/echoserver': ['1.4', '1.10'],
  'registry.k8s.io/hpa-example': ['latest'],
  'registry.k8s.io/nginx-slim': ['0.8', '0.21', '0.24', '0.26', '0.27'],
  'registry.k8s.io/e2e-test-images/agnhost': ['2.39', '2.40', '2.43', '2.45', '2.47', '2.48', '2.50', '2.52', '2.53'],
  'registry.k8s.io/coredns/coredns': ['v1.10.1', 'v1.11.1', 'v1.11.3', 'v1.12.0', 'v1.12.1'],
  'registry.k8s.io/etcd': ['3.5.15-0', '3.5.16-0', '3.5.21-0', '3.6.4-0', '3.6.5-0'],
  'registry.k8s.io/kube-apiserver': ['v1.33.0', 'v1.34.0', 'v1.35.0'],
  'registry.k8s.io/kube-controller-manager': ['v1.33.0', 'v1.34.0', 'v1.35.0'],
  'registry.k8s.io/kube-scheduler': ['v1.33.0', 'v1.34.0', 'v1.35.0'],
  'registry.k8s.io/kube-proxy': ['v1.33.0', 'v1.34.0', 'v1.35.0'],
  'gcr.io/google-samples/kubernetes-bootcamp': ['v1'],
  'docker.io/jocatalin/kubernetes-bootcamp': ['v1', 'v2'],
  'gcr.io/google-samples/hello-app': ['1.0', '2.0'],
  'us-docker.pkg.dev/google-samples/containers/gke/hello-app': ['1.0', '2.0'],
};
