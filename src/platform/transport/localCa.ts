import { X509Certificate, createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';

/**
 * The local certificate authority of `--tls` without `--tls-cert`: an ECDSA P-256 CA kept in
 * the data directory (so clients trust it once), and a leaf certificate for the server's host
 * names issued by it at every start (the names may change between starts). X.509 is written
 * here in DER directly (node:crypto signs; Node has no certificate builder): a few fixed
 * structures, each checked by `X509Certificate` in the tests.
 */

// ---- DER ------------------------------------------------------------------------------------

function lengthBytes(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), lengthBytes(body.length), body]);
};
const seq = (...items: Buffer[]) => tlv(0x30, ...items);
const set = (...items: Buffer[]) => tlv(0x31, ...items);
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
const octets = (b: Buffer) => tlv(0x04, b);
const bits = (b: Buffer, unused = 0) => tlv(0x03, Buffer.from([unused]), b);
const explicit = (n: number, inner: Buffer) => tlv(0xa0 + n, inner);

function integer(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0 && (b[i + 1] & 0x80) === 0) i++;
  const v = b.subarray(i);
  return tlv(0x02, v[0] & 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out = [parts[0] * 40 + parts[1]];
  for (const p of parts.slice(2)) {
    const group = [p & 0x7f];
    for (let v = p >>> 7; v > 0; v >>>= 7) group.unshift((v & 0x7f) | 0x80);
    out.push(...group);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime through 2049, GeneralizedTime after (RFC 5280 §4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z'; // YYYYMMDDHHMMSSZ
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2))) : tlv(0x18, Buffer.from(iso));
}

const name = (cn: string) => seq(set(seq(oid('2.5.4.10'), tlv(0x0c, Buffer.from('cloudtwin')))), set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(cn)))));
const extension = (id: string, critical: boolean, value: Buffer) => seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

function keyId(publicKey: KeyObject): Buffer {
  return createHash('sha1').update(publicKey.export({ type: 'spki', format: 'der' })).digest();
}

interface CertificateInit {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  issuerKey: KeyObject;
  issuerPublicKey: KeyObject;
  days: number;
  ca: boolean;
  dnsNames?: string[];
  ips?: string[];
}

function certificatePem(c: CertificateInit): string {
  const now = Date.now();
  const serial = randomBytes(16);
  serial[0] &= 0x7f;
  const exts = [
    extension('2.5.29.19', true, c.ca ? seq(bool(true), integer(Buffer.from([0]))) : seq()),
    // keyUsage: digitalSignature (+ keyCertSign, cRLSign for the CA)
    extension('2.5.29.15', true, c.ca ? bits(Buffer.from([0x86]), 1) : bits(Buffer.from([0x80]), 7)),
    extension('2.5.29.14', false, octets(keyId(c.publicKey))),
    extension('2.5.29.35', false, seq(tlv(0x80, keyId(c.issuerPublicKey)))),
  ];
  if (!c.ca) {
    exts.push(extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))));
    const alt = [
      ...(c.dnsNames ?? []).map((n) => tlv(0x82, Buffer.from(n))),
      ...(c.ips ?? []).map((ip) => tlv(0x87, Buffer.from(ipaddr.parse(ip).toByteArray()))),
    ];
    exts.push(extension('2.5.29.17', false, seq(...alt)));
  }
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    ECDSA_SHA256,
    name(c.issuer),
    seq(time(new Date(now - 60 * 60 * 1000)), time(new Date(now + c.days * 24 * 60 * 60 * 1000))),
    name(c.subject),
    c.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, seq(...exts)),
  );
  const der = seq(tbs, ECDSA_SHA256, bits(sign('sha256', tbs, c.issuerKey)));
  return `-----BEGIN CERTIFICATE-----\n${der.toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
}

// ---- the CA and the server's certificate ----------------------------------------------------

export interface ServerTls {
  /** PEM: the leaf certificate, then the CA's. */
  cert: string;
  key: string;
  /** The file clients trust (`NODE_EXTRA_CA_CERTS`, gcloud `core/custom_ca_certs_file`, ...). */
  caFile: string;
  /** The names the leaf certificate is valid for. */
  names: string[];
}

function writePrivate(file: string, text: string): void {
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** Splits host names into DNS names and IP literals; wildcard listen addresses name nothing. */
function subjectNames(hosts: string[]): { dnsNames: string[]; ips: string[] } {
  const dnsNames = new Set<string>(['localhost']);
  const ips = new Set<string>(['127.0.0.1', '::1']);
  for (const raw of hosts) {
    const h = raw.trim().replace(/^\[(.*)\]$/, '$1').toLowerCase();
    if (!h || h === '0.0.0.0' || h === '::') continue;
    if (ipaddr.isValid(h)) ips.add(ipaddr.parse(h).toString());
    else if (/^[a-z0-9*]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(h)) dnsNames.add(h);
  }
  return { dnsNames: [...dnsNames], ips: [...ips] };
}

/**
 * The server's certificate from the local CA in `dir` (created on first use, kept after), for
 * `localhost`, `127.0.0.1`, `::1`, this machine's host name and `hosts` (the listen host and the
 * `--allowed-host` names). Files are owner-only; the CA's key never leaves `dir`. With `keys:
 * 'memory'` (a run that keeps nothing) the CA is new, and only its certificate is written (for
 * clients to trust): no private key touches the disk.
 */
export function localServerTls(dir: string, hosts: string[], opts: { keys?: 'disk' | 'memory' } = {}): ServerTls {
  const onDisk = opts.keys !== 'memory';
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caFile = join(dir, 'ca.pem');
  const caKeyFile = join(dir, 'ca-key.pem');
  let caKey: KeyObject;
  let caPem: string;
  if (onDisk && existsSync(caFile) && existsSync(caKeyFile)) {
    caKey = createPrivateKey(readFileSync(caKeyFile));
    caPem = readFileSync(caFile, 'utf8');
  } else {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    caKey = pair.privateKey;
    caPem = certificatePem({ subject: 'cloudtwin local CA', issuer: 'cloudtwin local CA', publicKey: pair.publicKey, issuerKey: caKey, issuerPublicKey: pair.publicKey, days: 3650, ca: true });
    if (onDisk) writePrivate(caKeyFile, caKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    writePrivate(caFile, caPem);
  }
  const caPublic = createPublicKey(caKey);
  const { dnsNames, ips } = subjectNames([hostname(), ...hosts]);
  const leaf = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const leafPem = certificatePem({ subject: dnsNames[0], issuer: 'cloudtwin local CA', publicKey: leaf.publicKey, issuerKey: caKey, issuerPublicKey: caPublic, days: 397, ca: false, dnsNames, ips });
  if (!new X509Certificate(leafPem).verify(caPublic)) throw new Error(`the local CA in ${dir} did not produce a valid certificate`);
  const key = leaf.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  if (onDisk) {
    writePrivate(join(dir, 'server.pem'), leafPem + caPem);
    writePrivate(join(dir, 'server-key.pem'), key);
  }
  return { cert: leafPem + caPem, key, caFile, names: [...dnsNames, ...ips] };
}
