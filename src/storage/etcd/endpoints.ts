// The etcd endpoints of `--storage etcd://HOST:PORT[,HOST:PORT]`.

/** Parses `etcd://h1:p1,h2:p2` into client URLs (`http://h1:p1`, ...). */
export function parseEtcdUrl(spec: string): string[] {
  const m = /^etcd:\/\/(.+)$/.exec(spec);
  if (!m) throw new Error(`storage must be etcd://HOST:PORT[,HOST:PORT], not ${spec}`);
  return m[1].split(',').map((h) => {
    if (!/^[A-Za-z0-9.\-[\]:]+:\d{1,5}$/.test(h)) throw new Error(`bad etcd address ${h} (HOST:PORT)`);
    return `http://${h}`;
  });
}
