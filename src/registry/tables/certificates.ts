// certificates.k8s.io printers: CertificateSigningRequests with upstream's columns and CONDITION text
// (Denied or Approved or Pending, then ,Failed and ,Issued).
import { humanDuration } from '../../util/duration.js';
import { ageCol, ageOf, col, list, nameCol, nameOf, rec, str, type TablePrinter } from './helpers.js';

const SIGNER_NAME = 'signerName indicates the requested signer, and is a qualified name.\n\nList/watch requests for CertificateSigningRequests can filter on this field using a "spec.signerName=NAME" fieldSelector.\n\nWell-known Kubernetes signers are:\n 1. "kubernetes.io/kube-apiserver-client": issues client certificates that can be used to authenticate to kube-apiserver.\n  Requests for this signer are never auto-approved by kube-controller-manager, can be issued by the "csrsigning" controller in kube-controller-manager.\n 2. "kubernetes.io/kube-apiserver-client-kubelet": issues client certificates that kubelets use to authenticate to kube-apiserver.\n  Requests for this signer can be auto-approved by the "csrapproving" controller in kube-controller-manager, and can be issued by the "csrsigning" controller in kube-controller-manager.\n 3. "kubernetes.io/kubelet-serving" issues serving certificates that kubelets use to serve TLS endpoints, which kube-apiserver can connect to securely.\n  Requests for this signer are never auto-approved by kube-controller-manager, and can be issued by the "csrsigning" controller in kube-controller-manager.\n\nMore details are available at https://k8s.io/docs/reference/access-authn-authz/certificate-signing-requests/#kubernetes-signers\n\nCustom signerNames can also be specified. The signer defines:\n 1. Trust distribution: how trust (CA bundles) are distributed.\n 2. Permitted subjects: and behavior when a disallowed subject is requested.\n 3. Required, permitted, or forbidden x509 extensions in the request (including whether subjectAltNames are allowed, which types, restrictions on allowed values) and behavior when a disallowed extension is requested.\n 4. Required, permitted, or forbidden key usages / extended key usages.\n 5. Expiration/certificate lifetime: whether it is fixed by the signer, configurable by the admin.\n 6. Whether or not requests for CA certificates are allowed.';
const REQUEST = 'request contains an x509 certificate signing request encoded in a "CERTIFICATE REQUEST" PEM block. When serialized as JSON or YAML, the data is additionally base64-encoded.';
const EXPIRATION = 'expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.';
const CONDITIONS = 'conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".';

/** The CONDITION cell: the approval state in order of precedence, then Failed and Issued. */
function csrCondition(status: Record<string, unknown>): string {
  const types = new Set(list(status.conditions).map((c) => str(rec(c).type)));
  let out = types.has('Denied') ? 'Denied' : types.has('Approved') ? 'Approved' : 'Pending';
  if (types.has('Failed')) out += ',Failed';
  if (str(status.certificate)) out += ',Issued';
  return out;
}

export const certificateSigningRequestPrinter: TablePrinter = {
  columns: [nameCol(), ageCol(), col('SignerName', 'string', SIGNER_NAME), col('Requestor', 'string', REQUEST), col('RequestedDuration', 'string', EXPIRATION), col('Condition', 'string', CONDITIONS)],
  cells(obj, now) {
    const spec = rec(obj.spec);
    const seconds = spec.expirationSeconds;
    const duration = typeof seconds === 'number' ? humanDuration(seconds * 1000) : '<none>';
    return [nameOf(obj), ageOf(obj, now), str(spec.signerName) || '<none>', str(spec.username), duration, csrCondition(rec(obj.status))];
  },
};
