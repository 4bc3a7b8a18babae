import net from 'node:net';
import { Agent } from 'undici';
import { guardedLookup, hostOf, isPublicAddress, TargetRefused } from './target-guard.js';

// Vendor URLs (an assistant's LLM `base_url`, its fallbacks', its TTS `provider_config.base_url`) are chosen by API
// users, and the service sends its stored vendor key there and reads the answer back into a transcript. They get the
// same guard as tools and webhooks: public unicast addresses only, checked on the addresses DNS answers. A loopback or
// private LLM server (Ollama on the same machine) is legitimate on a single-tenant install, so the operator names
// such hosts explicitly (VENDOR_PRIVATE_HOSTS, host or host:port); the hosts of the operator's own `*_BASE_URL`
// variables are allowed the same way, since the operator chose them.

/** One host the operator allows although it is not public; `port` null allows every port of it. */
export interface HostAllowance {
  host: string;
  port: number | null;
}

export interface VendorTargetPolicy {
  privateHosts: readonly HostAllowance[];
}

export const NO_PRIVATE_VENDOR_HOSTS: VendorTargetPolicy = { privateHosts: [] };

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };

/** Lower case, IPv6 brackets and a trailing dot removed: the form hosts are compared in. */
function normalHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare.toLowerCase().replace(/\.$/, '');
}

/** `host`, `host:port`, `[v6]` or `[v6]:port`; null when it is none of those. */
export function parseHostAllowance(text: string): HostAllowance | null {
  const entry = text.trim();
  if (entry.length === 0) return null;
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/i.exec(entry);
  if (bracketed) return net.isIPv6(bracketed[1]!) ? allowance(bracketed[1]!, bracketed[2]) : null;
  if (net.isIPv6(entry)) return { host: normalHost(entry), port: null };
  const plain = /^([a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(entry);
  return plain ? allowance(plain[1]!, plain[2]) : null;
}

function allowance(host: string, port: string | undefined): HostAllowance | null {
  const number = port === undefined ? null : Number(port);
  if (number !== null && (number < 1 || number > 65535)) return null;
  return { host: normalHost(host), port: number };
}

/** VENDOR_PRIVATE_HOSTS: comma-separated allowances; the entries that are not one are returned apart. */
export function parseHostAllowances(text: string | undefined): { allowed: HostAllowance[]; invalid: string[] } {
  const allowed: HostAllowance[] = [];
  const invalid: string[] = [];
  for (const entry of (text ?? '').split(',')) {
    if (entry.trim().length === 0) continue;
    const parsed = parseHostAllowance(entry);
    if (parsed) allowed.push(parsed);
    else invalid.push(entry.trim());
  }
  return { allowed, invalid };
}

/** The allowance of a URL's own host and port: how an operator's `*_BASE_URL` joins the policy. */
export function allowanceOfUrl(text: string): HostAllowance | null {
  try {
    const url = new URL(text);
    return { host: normalHost(url.hostname), port: portOf(url) };
  } catch {
    return null;
  }
}

function portOf(url: URL): number | null {
  return url.port ? Number(url.port) : (DEFAULT_PORTS[url.protocol] ?? null);
}

/** Whether the operator allows this URL's host (and port) although it may not be public. */
export function isAllowedPrivate(url: URL, policy: VendorTargetPolicy): boolean {
  const host = normalHost(url.hostname);
  const port = portOf(url);
  return policy.privateHosts.some((a) => a.host === host && (a.port === null || a.port === port));
}

/** `localhost` and its subdomains resolve to loopback on every resolver that follows RFC 6761. */
function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/**
 * Why the service would not call this URL, decided without DNS (what a create or update can check at once): its host
 * is an IP literal outside public unicast space, or a `localhost` name, and the operator has not allowed it. Null
 * when it may be called (a host name is checked again on its DNS answers when connected to).
 */
export function vendorUrlRefusal(text: string, policy: VendorTargetPolicy): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'Not a URL';
  }
  if (!(url.protocol in DEFAULT_PORTS)) return 'Only http, https, ws and wss URLs';
  if (isAllowedPrivate(url, policy)) return null;
  const host = hostOf(url);
  const isLiteral = net.isIP(host) !== 0;
  if ((isLiteral && !isPublicAddress(host)) || (!isLiteral && isLocalhostName(normalHost(host)))) {
    return `${normalHost(host)} is a loopback, private or reserved address: the service calls it only when the operator allows the host in VENDOR_PRIVATE_HOSTS`;
  }
  return null;
}

/** A vendor URL the service will not call; `message` names the host, never the path or query. */
export class VendorTargetRefused extends Error {
  readonly code = 'EVENDORTARGETREFUSED';
  constructor(readonly host: string) {
    super(`vendor host ${host} is not a public address and is not among VENDOR_PRIVATE_HOSTS`);
    this.name = 'VendorTargetRefused';
  }
}

/**
 * Resolves the URL's host and throws VendorTargetRefused when it, or any address DNS answers for it, is not public
 * (unless allowed): the check made before a call or test run connects to a vendor whose client cannot take the
 * guarded `fetch` below.
 */
export async function checkVendorTarget(text: string, policy: VendorTargetPolicy): Promise<void> {
  const refusal = vendorUrlRefusal(text, policy);
  const url = new URL(text);
  if (refusal) throw new VendorTargetRefused(normalHost(url.hostname));
  if (isAllowedPrivate(url, policy) || net.isIP(hostOf(url)) !== 0) return;
  const lookup = guardedLookup(false);
  await new Promise<void>((resolve, reject) => {
    lookup(hostOf(url), { all: true }, (error) => {
      if (error instanceof TargetRefused) reject(new VendorTargetRefused(normalHost(url.hostname)));
      // A name that does not resolve is the vendor's connection error, reported by the client when it connects.
      else resolve();
    });
  });
}

/**
 * A `fetch` for a vendor's client that connects only where the policy lets it: the guard runs on the address the
 * socket connects to (so DNS cannot answer differently between a check and the connection), and an IP literal, which
 * is connected to without a lookup, is checked first. Redirects are not followed: one could lead inside.
 */
export function vendorFetch(policy: VendorTargetPolicy): typeof fetch {
  let made = fetches.get(policy);
  if (!made) fetches.set(policy, (made = makeVendorFetch(policy)));
  return made;
}

/** One fetch (and its connection pools) per policy: a process has one policy, and every client shares its pools. */
const fetches = new WeakMap<VendorTargetPolicy, typeof fetch>();
const guarded = new Agent({ connect: { lookup: guardedLookup(false) } });
const open = new Agent();

function makeVendorFetch(policy: VendorTargetPolicy): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const allowed = isAllowedPrivate(url, policy);
    if (!allowed && vendorUrlRefusal(url.href, policy)) throw new VendorTargetRefused(normalHost(url.hostname));
    try {
      // Node's own fetch takes the dispatcher of the undici release it bundles (the same major as the dependency).
      return await fetch(input, { ...init, redirect: 'manual', dispatcher: allowed ? open : guarded } as unknown as RequestInit);
    } catch (error) {
      if (causeIsRefusal(error)) throw new VendorTargetRefused(normalHost(url.hostname));
      throw error;
    }
  }) as typeof fetch;
}

function causeIsRefusal(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof TargetRefused || (e as { code?: string }).code === 'ETARGETREFUSED') return true;
  }
  return false;
}
