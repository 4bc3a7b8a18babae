import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TokenVerifier, type ClaimGrants } from 'livekit-server-sdk';

// LiveKit's server API as it speaks on the wire: Twirp over HTTP (POST /twirp/livekit.<Service>/<Method>, protobuf
// JSON bodies, a bearer JWT signed with the API secret carrying the grants the method needs), and Twirp's error body
// `{code, msg, meta}` with the SIP status in `meta` when a dial fails. Every request is recorded with its verified
// claims so tests can assert exactly what was asked. It keeps which participants are in which room as far as these
// methods make them: a dialled SIP participant joins its room once answered, MoveParticipant moves one between rooms,
// DeleteRoom removes everyone (hanging up a SIP participant). Media does not pass through it: rooms have no WebRTC.

export interface TwirpCall {
  service: string;
  method: string;
  body: Record<string, any>;
  claims: ClaimGrants;
}

/** How the fake's SIP side answers a dial to a number: answer, or fail with a SIP status. */
export type DialOutcome = { answer: true; afterMs?: number } | { sipStatus: number; reason: string; afterMs?: number };
/** How the far side answers a transfer (a SIP REFER): accept it, or refuse with a SIP status. */
export type TransferOutcome = { accept: true; afterMs?: number } | { sipStatus: number; reason: string; afterMs?: number };

export interface FakeLiveKit {
  url: string;
  apiKey: string;
  apiSecret: string;
  calls: TwirpCall[];
  of(method: string): TwirpCall[];
  /** The outcome of dialling `number` (default: answered at once). */
  onDial(number: string, outcome: DialOutcome): void;
  /** The outcome of transferring a participant to `transferTo` (`tel:+1…` or a SIP URI; default: accepted at once). */
  onTransfer(transferTo: string, outcome: TransferOutcome): void;
  /** A room that exists on the server, as a SIP dispatch rule's room does, without a CreateRoom. */
  addRoom(name: string): void;
  /** The identities in room `name`, as dials, moves and deletions left them; undefined for a room that does not exist. */
  participants(name: string): string[] | undefined;
  /** Answers MoveParticipant as a server without it does (Twirp `unimplemented`), until called with false. */
  withoutMoveParticipant(without: boolean): void;
  /** Makes every request fail with 503 until called with false. */
  down(isDown: boolean): void;
  close(): Promise<void>;
}

const API_KEY = 'APItestkey';
const API_SECRET = 'test-secret-test-secret-test-secret-00';

function twirpError(res: http.ServerResponse, status: number, code: string, msg: string, meta?: Record<string, string>) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ code, msg, ...(meta ? { meta } : {}) }));
}

export async function startFakeLiveKit(): Promise<FakeLiveKit> {
  const verifier = new TokenVerifier(API_KEY, API_SECRET);
  const calls: TwirpCall[] = [];
  const outcomes = new Map<string, DialOutcome>();
  const transfers = new Map<string, TransferOutcome>();
  const rooms = new Map<string, Set<string>>();
  let isDown = false;
  let noMove = false;
  let sequence = 0;

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      void (async () => {
        const match = /^\/twirp\/livekit\.(\w+)\/(\w+)$/.exec(req.url ?? '');
        if (req.method !== 'POST' || !match) return twirpError(res, 404, 'bad_route', 'no such method');
        if (isDown) return twirpError(res, 503, 'unavailable', 'server unavailable');
        let claims: ClaimGrants;
        try {
          claims = await verifier.verify((req.headers.authorization ?? '').replace(/^Bearer /, ''));
        } catch {
          return twirpError(res, 401, 'unauthenticated', 'invalid token');
        }
        const body = JSON.parse(raw || '{}') as Record<string, any>;
        const [, service, method] = match as unknown as [string, string, string];
        calls.push({ service, method, body, claims });
        const reply = (value: unknown) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(value));
        };
        const key = `${service}/${method}`;
        if (key === 'RoomService/CreateRoom') {
          if (!claims.video?.roomCreate) return twirpError(res, 403, 'permission_denied', 'roomCreate required');
          if (!rooms.has(body.name)) rooms.set(body.name, new Set());
          return reply({
            sid: `RM_${++sequence}`,
            name: body.name,
            emptyTimeout: body.emptyTimeout,
            metadata: body.metadata ?? '',
            creationTime: String(Math.floor(Date.now() / 1000)),
          });
        }
        if (key === 'RoomService/DeleteRoom') {
          if (!claims.video?.roomCreate) return twirpError(res, 403, 'permission_denied', 'roomCreate required');
          if (!rooms.has(body.room)) return twirpError(res, 404, 'not_found', 'room does not exist');
          rooms.delete(body.room);
          return reply({});
        }
        if (key === 'RoomService/MoveParticipant') {
          if (noMove) return twirpError(res, 501, 'unimplemented', 'MoveParticipant is not supported by this server');
          if (!claims.video?.roomAdmin || claims.video.room !== body.room || claims.video.destinationRoom !== body.destinationRoom)
            return twirpError(res, 403, 'permission_denied', 'roomAdmin on the room and destinationRoom required');
          if (!body.room || !body.identity || !body.destinationRoom) return twirpError(res, 400, 'invalid_argument', 'room, identity and destination required');
          const from = rooms.get(body.room);
          const to = rooms.get(body.destinationRoom);
          if (!from || !to) return twirpError(res, 404, 'not_found', 'room does not exist');
          if (!from.has(body.identity)) return twirpError(res, 404, 'not_found', 'participant not found');
          from.delete(body.identity);
          to.add(body.identity);
          return reply({});
        }
        if (key === 'AgentDispatchService/CreateDispatch') {
          if (!claims.video?.roomAdmin || claims.video.room !== body.room) return twirpError(res, 403, 'permission_denied', 'roomAdmin on the room required');
          if (!rooms.has(body.room)) return twirpError(res, 404, 'not_found', 'room does not exist');
          return reply({ id: `AD_${++sequence}`, agentName: body.agentName, room: body.room, metadata: body.metadata ?? '' });
        }
        if (key === 'SIP/CreateSIPParticipant') {
          if (!claims.sip?.call) return twirpError(res, 403, 'permission_denied', 'sip call grant required');
          if (!body.sipTrunkId && !body.trunk?.hostname) return twirpError(res, 400, 'invalid_argument', 'trunk required');
          const outcome = outcomes.get(body.sipCallTo) ?? { answer: true };
          if (outcome.afterMs) await new Promise((r) => setTimeout(r, outcome.afterMs));
          if ('sipStatus' in outcome) {
            return twirpError(
              res,
              outcome.sipStatus === 486 ? 409 : 408,
              outcome.sipStatus === 486 ? 'resource_exhausted' : 'deadline_exceeded',
              `sip status: ${outcome.sipStatus}: ${outcome.reason}`,
              {
                sip_status_code: String(outcome.sipStatus),
                sip_status: outcome.reason,
              },
            );
          }
          // Answered: the SIP participant is in its room (which a join creates, as LiveKit's auto-create does).
          const room = rooms.get(body.roomName) ?? new Set<string>();
          rooms.set(body.roomName, room);
          room.add(body.participantIdentity);
          return reply({
            participantId: `PA_${++sequence}`,
            participantIdentity: body.participantIdentity,
            roomName: body.roomName,
            sipCallId: `SCL_${sequence}`,
          });
        }
        if (key === 'SIP/TransferSIPParticipant') {
          // The server asks for both grants: SIP calls, and admin of the room the participant is in.
          if (!claims.sip?.call) return twirpError(res, 403, 'permission_denied', 'sip call grant required');
          if (!claims.video?.roomAdmin || claims.video.room !== body.roomName)
            return twirpError(res, 403, 'permission_denied', 'roomAdmin on the room required');
          if (!body.participantIdentity || !body.transferTo)
            return twirpError(res, 400, 'invalid_argument', 'participant identity and transfer destination required');
          if (!rooms.has(body.roomName)) return twirpError(res, 404, 'not_found', 'room does not exist');
          const outcome = transfers.get(body.transferTo) ?? { accept: true };
          if (outcome.afterMs) await new Promise((r) => setTimeout(r, outcome.afterMs));
          if ('sipStatus' in outcome) {
            return twirpError(res, 412, 'failed_precondition', `sip status: ${outcome.sipStatus}: ${outcome.reason}`, {
              sip_status_code: String(outcome.sipStatus),
              sip_status: outcome.reason,
            });
          }
          return reply({});
        }
        return twirpError(res, 404, 'bad_route', `unknown method ${key}`);
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    apiKey: API_KEY,
    apiSecret: API_SECRET,
    calls,
    of: (method) => calls.filter((c) => c.method === method),
    onDial: (number, outcome) => void outcomes.set(number, outcome),
    onTransfer: (transferTo, outcome) => void transfers.set(transferTo, outcome),
    addRoom: (name) => void (rooms.has(name) || rooms.set(name, new Set())),
    participants: (name) => (rooms.has(name) ? [...rooms.get(name)!] : undefined),
    withoutMoveParticipant: (without) => void (noMove = without),
    down: (value) => void (isDown = value),
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
