// Shuffle sharding, as upstream's fair queuing picks a flow's candidate queues: a hash of the flow deals a hand of
// `handSize` distinct queues out of `queues`; the request then joins the least loaded queue of its hand. Two flows
// share their whole hand only rarely, so one heavy flow crowds few others.

/** FNV-1a over the UTF-16 code units of `text`, from `seed` (32 bits). */
function fnv1a(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** A 53-bit hash of a flow (its FlowSchema and distinguisher), exact in a double. */
export function flowHash(flowSchema: string, distinguisher: string): number {
  const key = `${flowSchema}\u0000${distinguisher}`;
  const high = fnv1a(key, 0x811c9dc5) & 0x1fffff;
  const low = fnv1a(key, 0x050c5d1f);
  return high * 0x100000000 + low;
}

/**
 * The hand `hash` deals: `handSize` distinct indexes in [0, queues). The hash is read as a mixed-radix number
 * (radices queues, queues-1, ...); each digit picks among the queues not dealt yet. Hands larger than the deck
 * are cut to the deck.
 */
export function dealHand(hash: number, queues: number, handSize: number): number[] {
  const size = Math.min(handSize, queues);
  const digits: number[] = [];
  let rest = hash;
  for (let i = 0; i < size; i++) {
    const radix = queues - i;
    digits.push(rest % radix);
    rest = Math.floor(rest / radix);
  }
  const hand: number[] = [];
  for (const d of digits) {
    // The d-th queue among those not yet dealt: step over the dealt ones at or below it, in increasing order.
    let card = d;
    for (const taken of [...hand].sort((a, b) => a - b)) if (card >= taken) card++;
    hand.push(card);
  }
  return hand;
}
