// Hostile ConversionReview answers (issue 23): what a CRD's conversion webhook may send back, malformed or lying,
// and the error kube-apiserver's webhook converter gives for each. Driven by test/unit/conversion-webhook.test.ts
// against a real HTTPS server: every row must end in a 500 ApiError with the expected message (never a crash, a
// hang, a polluted prototype or a converted object that slipped through), except rows that expect success.

type Json = Record<string, unknown>;

export interface ConversionRow {
  name: string;
  /** The raw body the webhook answers, given the request it received. */
  answer: (review: { request: { uid: string; desiredAPIVersion: string; objects: Json[] } }) => string;
  /** The message expected (a 500); undefined when the conversion succeeds. */
  error?: RegExp;
  /** Checks a successful conversion's first object. */
  check?: (converted: Json) => string | undefined;
}

const review = (response: unknown) => JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response });
const success = (uid: string, objects: unknown[]) => review({ uid, result: { status: 'Success' }, convertedObjects: objects });
/** The objects converted honestly (apiVersion rewritten), then changed by `edit`. */
const edited = (r: Parameters<ConversionRow['answer']>[0], edit: (o: Json) => Json) =>
  success(r.request.uid, r.request.objects.map((o) => edit({ ...o, apiVersion: r.request.desiredAPIVersion })));
const meta = (o: Json) => o.metadata as Json;

const PREFIX = 'conversion webhook for hostile\\.example\\.com/v1, Kind=Thing';

export const conversionRows: ConversionRow[] = [
  { name: 'a body that is not JSON', answer: () => '<html>oops</html>', error: new RegExp(`${PREFIX} failed: couldn't get version/kind; json parse error`) },
  { name: 'an empty body', answer: () => '', error: new RegExp(`${PREFIX} failed: couldn't get version/kind`) },
  { name: 'a review of another kind', answer: (r) => JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: r.request.uid } }),
    error: new RegExp(`${PREFIX} failed: expected webhook response of apiextensions\\.k8s\\.io/v1, Kind=ConversionReview, got admission\\.k8s\\.io/v1, Kind=AdmissionReview`) },
  { name: 'no response', answer: () => review(undefined), error: new RegExp(`${PREFIX} failed: no response provided`) },
  { name: 'another request\'s uid', answer: () => success('someone-else', []), error: new RegExp(`${PREFIX} failed: expected response\\.uid="[0-9a-f-]{36}", got "someone-else"`) },
  { name: 'a Failure without a message', answer: (r) => review({ uid: r.request.uid, result: { status: 'Failure' } }), error: new RegExp(`${PREFIX} failed: response\\.result\\.status was 'Failure', not 'Success'`) },
  { name: 'fewer objects than sent', answer: (r) => success(r.request.uid, []), error: new RegExp(`${PREFIX} returned 0 objects, expected 1`) },
  { name: 'an object that is a string', answer: (r) => success(r.request.uid, ['x']), error: new RegExp(`${PREFIX} returned invalid converted object at index 0`) },
  { name: 'the object left in its version', answer: (r) => success(r.request.uid, r.request.objects),
    error: new RegExp(`${PREFIX} returned invalid object at index 0: invalid groupVersion \\(expected hostile\\.example\\.com/v2, received hostile\\.example\\.com/v1\\)`) },
  { name: 'another kind', answer: (r) => edited(r, (o) => ({ ...o, kind: 'Other' })), error: new RegExp(`${PREFIX} returned invalid object at index 0: invalid kind \\(expected Thing, received Other\\)`) },
  { name: 'a renamed object', answer: (r) => edited(r, (o) => ({ ...o, metadata: { ...meta(o), name: 'other' } })), error: new RegExp(`${PREFIX} returned invalid object: must have the same name: one != other`) },
  { name: 'another uid', answer: (r) => edited(r, (o) => ({ ...o, metadata: { ...meta(o), uid: 'u2' } })), error: new RegExp(`${PREFIX} returned invalid object: must have the same UID: u1 != u2`) },
  { name: 'no metadata', answer: (r) => edited(r, (o) => ({ apiVersion: o.apiVersion, kind: o.kind })), error: new RegExp(`${PREFIX} returned invalid object: must have the same name: one != `) },
  { name: 'metadata that is an array', answer: (r) => edited(r, (o) => ({ ...o, metadata: [] })), error: new RegExp(`${PREFIX} returned invalid object: must have the same name`) },
  { name: 'a label value that is a number', answer: (r) => edited(r, (o) => ({ ...o, metadata: { ...meta(o), labels: { a: 1 } } })),
    error: new RegExp(`${PREFIX} returned invalid metadata: metadata\\.labels\\[a\\] must be a string`) },
  { name: 'an invalid label key', answer: (r) => edited(r, (o) => ({ ...o, metadata: { ...meta(o), labels: { 'bad key!': 'x' } } })),
    error: new RegExp(`${PREFIX} returned invalid metadata: metadata\\.labels: Invalid value: "bad key!"`) },
  { name: 'labels and a spec keyed __proto__ and constructor', error: undefined,
    answer: (r) => edited(r, (o) => JSON.parse(JSON.stringify(o).replace('"spec":{', '"spec":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},')) as Json),
    check: () => (({} as Json).polluted !== undefined ? 'Object.prototype was polluted' : undefined) },
  { name: 'a changed generation and finalizers (restored from the original, not refused)', error: undefined,
    answer: (r) => edited(r, (o) => ({ ...o, metadata: { ...meta(o), generation: 99, finalizers: ['x/y'], labels: { new: 'label' } } })),
    check: (c) => {
      const m = c.metadata as Json;
      if (m.generation !== 1 || m.finalizers !== undefined) return `metadata was not restored: ${JSON.stringify(m)}`;
      return (m.labels as Json | undefined)?.new === 'label' ? undefined : 'the webhook\'s labels were not kept';
    } },
  { name: 'an object nesting 10,000 levels (the text built by hand: V8 cannot stringify it)', error: new RegExp(`${PREFIX} failed: json: invalid character '\\{' exceeded max depth`),
    answer: (r) => edited(r, (o) => ({ ...o, spec: '@deep@' })).replace('"@deep@"', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`) },
  { name: 'a response larger than 3 MiB', answer: (r) => edited(r, (o) => ({ ...o, spec: { big: 'x'.repeat(3 * 1024 * 1024 + 10) } })),
    error: new RegExp(`${PREFIX} failed: Post "https://127\\.0\\.0\\.1:\\d+/hostile/\\d+\\?timeout=30s": response body larger than 3145728 bytes`) },
];
