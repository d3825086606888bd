// Files well-known images carry beyond the skeleton every simulated container has, where a tutorial reads them
// (the Kubernetes Basics tutorial runs `cat server.js` in the kubernetes-bootcamp container; nginx's tutorials read
// its configuration and its welcome page).
import { nginxFiles } from './nginx-files.js';

/** Paths and contents of the files an image adds to its filesystem. */
export function imageFiles(image: string): Array<[string, string]> {
  if (/^(?:[^/]+\/)*nginx(?::[^/@]*)?(?:@.*)?$/.test(image)) return nginxFiles();
  const m = /(?:^|\/)kubernetes-bootcamp(?::(v\d+))?(?:@|$)/.exec(image);
  if (!m) return [];
  const version = m[1] === 'v2' ? 'v=2' : 'v=1';
  return [['/server.js', bootcampServer(version)]];
}

function bootcampServer(version: string): string {
  return `// The kubernetes-bootcamp app (as Bonsai simulates it): answers every request with the pod it runs on.
const http = require('http');
const host = process.env.HOSTNAME;
const started = new Date();
let requests = 0;

http.createServer((req, res) => {
  requests++;
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end(\`Hello Kubernetes bootcamp! | Running on: \${host} | ${version}\\n\`);
  console.log(\`Running On: \${host} | Total Requests: \${requests} | App Uptime: \${(Date.now() - started) / 1000} seconds | Log Time: \${new Date()}\`);
}).listen(8080, () => {
  console.log(\`Kubernetes Bootcamp App Started At: \${started.toISOString()} | Running On:  \${host} \\n\`);
});
`;
}
