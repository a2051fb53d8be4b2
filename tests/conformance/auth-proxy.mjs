// A reverse proxy for the conformance harness, which sends no credentials: it forwards every
// request to gantry's local API at 127.0.0.1:TARGET_PORT with `Authorization: Bearer TOKEN`
// added. A loopback Host or Origin is rewritten to the target's port (what a client talking
// to gantry directly would send); any other Host or Origin passes unchanged, so gantry's
// DNS-rebinding check sees it. Prints "PORT n" once listening.
//   TARGET_PORT=8700 TOKEN=t node auth-proxy.mjs
import http from 'node:http';

const target = Number(process.env.TARGET_PORT);
const token = process.env.TOKEN;
const loopback = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;

function retarget(value) {
  if (!value) return value;
  const origin = value.match(/^(https?:\/\/)(.*)$/);
  const host = origin ? origin[2] : value;
  if (!loopback.test(host)) return value;
  const name = host.replace(/:\d+$/, '');
  return (origin ? origin[1] : '') + `${name}:${target}`;
}

const server = http.createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  headers.host = retarget(req.headers.host);
  if (req.headers.origin) headers.origin = retarget(req.headers.origin);
  const upstream = http.request(
    { host: '127.0.0.1', port: target, method: req.method, path: req.url, headers },
    (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    });
  upstream.on('error', (e) => {
    res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`proxy: ${e.message}`);
  });
  req.pipe(upstream);
});
server.listen(0, '127.0.0.1', () => console.log(`PORT ${server.address().port}`));
