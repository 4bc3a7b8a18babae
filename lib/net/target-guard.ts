import dns from 'node:dns';
import net from 'node:net';

// Webhook URLs are chosen by API users, so a delivery is a request our network makes on their behalf. Without this
// guard a user could point an endpoint at the cloud metadata service (169.254.169.254), at the database, or at any
// other host inside our network, and read the answers in the delivery log. Only public unicast addresses are allowed,
// checked on the address actually connected to (after DNS), unless an operator opts out for a private deployment.

const blocked = new net.BlockList();
const V4_RANGES: [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
for (const [address, prefix] of V4_RANGES) blocked.addSubnet(address, prefix, 'ipv4');

const globalUnicastV6 = new net.BlockList();
globalUnicastV6.addSubnet('2000::', 3, 'ipv6');
const V6_RANGES_INSIDE_GLOBAL: [string, number][] = [
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, ...)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: the embedded IPv4 address decides, and it is checked separately below
  ['3fff::', 20], // documentation
];
for (const [address, prefix] of V6_RANGES_INSIDE_GLOBAL) blocked.addSubnet(address, prefix, 'ipv6');

function embeddedV4(address: string): string | undefined {
  // ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address they carry.
  const match = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (match) return match[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return undefined;
}

/** Whether an IP address (v4 or v6 text) is a public unicast address a webhook may be sent to. */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = net.isIP(bare);
  if (family === 4) return !blocked.check(bare, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedV4(bare);
  if (v4 !== undefined) return isPublicAddress(v4);
  return globalUnicastV6.check(bare, 'ipv6') && !blocked.check(bare, 'ipv6');
}

export class TargetRefused extends Error {
  readonly code = 'ETARGETREFUSED';
  constructor() {
    super('target address is not public');
    this.name = 'TargetRefused';
  }
}

/** The host of a URL without IPv6 brackets, as DNS and `net` take it. */
export function hostOf(url: URL): string {
  const host = url.hostname;
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Whether the URL's host is an IP literal outside public unicast space. Node connects to an IP literal without any
 * lookup, so `guardedLookup` never sees it: this is the check for that case.
 */
export function isRefusedLiteral(url: URL, allowPrivate: boolean): boolean {
  const host = hostOf(url);
  return !allowPrivate && net.isIP(host) !== 0 && !isPublicAddress(host);
}

/**
 * A `lookup` for `http.request` that resolves like Node's own and then refuses the connection when any resolved
 * address is not public. The socket connects to the address checked here, so DNS cannot answer differently between
 * the check and the connection (rebinding).
 */
export function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      const list = addresses as dns.LookupAddress[];
      if (!allowPrivate && (list.length === 0 || list.some((a) => !isPublicAddress(a.address)))) {
        return callback(new TargetRefused());
      }
      if (options.all) return callback(null, list);
      const first = list[0]!;
      return callback(null, first.address, first.family);
    });
  }) as net.LookupFunction;
}
