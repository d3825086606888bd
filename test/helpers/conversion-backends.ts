// The Backend custom resource of the conversion webhook tests: `spec.host` + `spec.port` in v1 (the storage
// version), `spec.address: "host:port"` in v2, each version with a printer column of its own shape; and the
// conversion a test webhook answers with (which also labels what it converted `converted: yes`).
type Json = Record<string, any>;

/** `obj` as `desired` (an apiVersion of the Backend group). */
export function convertBackend(obj: Json, desired: string): Json {
  const spec: Json = { ...(obj.spec ?? {}) };
  if (desired.endsWith('/v2') && 'host' in spec) {
    spec.address = `${spec.host}:${spec.port}`;
    delete spec.host;
    delete spec.port;
  } else if (desired.endsWith('/v1') && 'address' in spec) {
    const [host, port] = String(spec.address).split(':');
    Object.assign(spec, { host, port: Number(port) });
    delete spec.address;
  }
  return { ...obj, apiVersion: desired, spec, metadata: { ...obj.metadata, labels: { ...(obj.metadata?.labels ?? {}), converted: 'yes' } } };
}

/** A ConversionReview v1 answer converting every object of `review`. */
export function convertedReview(review: Json): Json {
  const { uid, desiredAPIVersion, objects } = review.request;
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid, result: { status: 'Success' }, convertedObjects: objects.map((o: Json) => convertBackend(o, desiredAPIVersion)) } };
}

/** A CRD of Backends in group `group`, converted by `clientConfig` (YAML flow). */
export function backendCrd(group: string, clientConfig: string): string {
  const version = (name: string, storage: boolean, spec: string, column: string) => `  - name: ${name}
    served: true
    storage: ${storage}
    subresources: {status: {}}
    additionalPrinterColumns: [${column}]
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: ${spec}}
          status: {type: object, properties: {ready: {type: boolean}}}
`;
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: backends.${group}}
spec:
  group: ${group}
  scope: Namespaced
  names: {plural: backends, singular: backend, kind: Backend}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: ["v1"]
      clientConfig: ${clientConfig}
  versions:
${version('v1', true, '{host: {type: string}, port: {type: integer}}', '{name: Host, type: string, jsonPath: .spec.host}')}${version('v2', false, '{address: {type: string}}', '{name: Address, type: string, jsonPath: .spec.address}')}`;
}

/** A Backend in v1 (YAML). */
export function backendV1(group: string, name: string, host = 'db.example', port = 5432, namespace = 'default'): string {
  return `apiVersion: ${group}/v1
kind: Backend
metadata: {name: ${name}, namespace: ${namespace}}
spec: {host: ${host}, port: ${port}}
`;
}
