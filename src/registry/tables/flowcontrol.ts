// flowcontrol.apiserver.k8s.io printers, as upstream's: FlowSchemas listed by matching precedence, then name, with
// MISSINGPL from the Dangling condition ("?" before the controller has set it); PriorityLevelConfigurations with
// "<none>" for what their type does not have.
import type { KObject } from '../../machinery/types.js';
import { ageCol, ageOf, col, int, list, nameCol, nameOf, rec, str, type TablePrinter } from './helpers.js';

const PRIORITY_LEVEL = '`name` is the name of the priority level configuration being referenced Required.';
const MATCHING_PRECEDENCE = '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.';
const DISTINGUISHER = '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.';
const TYPE = '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `\"Exempt\"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `\"Limited\"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.';
const SHARES = '`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level. This is used both for requests dispatched from this priority level as well as requests dispatched from other priority levels borrowing seats from this level. The server\'s concurrency limit (ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level.\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero supports the construction of a \"jail\" for this priority level that is used to hold some request(s)';
const QUEUES = '`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.';
const HAND_SIZE = '`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request\'s flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the user-facing documentation for more extensive guidance on setting this field.  This field has a default value of 8.';
const QUEUE_LENGTH_LIMIT = '`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.';

/** Matching precedence, lowest first, then name: the order upstream's printer sorts a list in. */
function byPrecedence(items: readonly KObject[]): KObject[] {
  const precedence = (o: KObject) => int(rec(o.spec).matchingPrecedence);
  return [...items].sort((a, b) => precedence(a) - precedence(b) || (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
}

export const flowSchemaPrinter: TablePrinter = {
  columns: [
    nameCol(), col('PriorityLevel', 'string', PRIORITY_LEVEL), col('MatchingPrecedence', 'string', MATCHING_PRECEDENCE),
    col('DistinguisherMethod', 'string', DISTINGUISHER), ageCol(), col('MissingPL', 'string', 'references a broken or non-existent PriorityLevelConfiguration'),
  ],
  cells(obj, now) {
    const spec = rec(obj.spec);
    const method = spec.distinguisherMethod ? str(rec(spec.distinguisherMethod).type) : '<none>';
    const dangling = list(rec(obj.status).conditions).map(rec).find((c) => c.type === 'Dangling');
    return [nameOf(obj), str(rec(spec.priorityLevelConfiguration).name), int(spec.matchingPrecedence), method, ageOf(obj, now), dangling ? str(dangling.status) : '?'];
  },
  order: byPrecedence,
};

export const priorityLevelConfigurationPrinter: TablePrinter = {
  columns: [
    nameCol(), col('Type', 'string', TYPE), col('NominalConcurrencyShares', 'string', SHARES), col('Queues', 'string', QUEUES),
    col('HandSize', 'string', HAND_SIZE), col('QueueLengthLimit', 'string', QUEUE_LENGTH_LIMIT), ageCol(),
  ],
  cells(obj, now) {
    const spec = rec(obj.spec);
    const cells: unknown[] = ['<none>', '<none>', '<none>', '<none>'];
    if (spec.limited) {
      const limited = rec(spec.limited);
      cells[0] = int(limited.nominalConcurrencyShares);
      const q = rec(limited.limitResponse).queuing;
      if (q) {
        const queuing = rec(q);
        cells[1] = int(queuing.queues);
        cells[2] = int(queuing.handSize);
        cells[3] = int(queuing.queueLengthLimit);
      }
    }
    return [nameOf(obj), str(spec.type), ...cells, ageOf(obj, now)];
  },
};
