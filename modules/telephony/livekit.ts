import { SIPOutboundConfig, SIPTransport } from '@livekit/protocol';
import { AccessToken, AgentDispatchClient, RoomServiceClient, SipClient, type SIPParticipantInfo } from 'livekit-server-sdk';

// The LiveKit server APIs the API process uses (Twirp over HTTP): rooms, agent dispatch and SIP participants. One
// object, built from configuration, so routes and the dialler never read the environment themselves.

export interface LiveKitConfig {
  /** ws(s):// or http(s):// URL of the LiveKit server. */
  url: string;
  apiKey: string;
  apiSecret: string;
  /** The agent name workers register with; dispatches ask for it. */
  agentName: string;
}

/** Rooms are closed this long after the last participant leaves: long enough for a dial that takes a while to answer. */
const EMPTY_ROOM_TIMEOUT_S = 60;

export interface OutboundTrunk {
  /** A trunk provisioned in LiveKit; when absent, the trunk is given inline from the connection. */
  livekitTrunkId: string | null;
  sipAddress: string;
  sipTransport: string;
  username: string | null;
  password: string | null;
}

const TRANSPORTS: Record<string, SIPTransport> = {
  udp: SIPTransport.SIP_TRANSPORT_UDP,
  tcp: SIPTransport.SIP_TRANSPORT_TCP,
  tls: SIPTransport.SIP_TRANSPORT_TLS,
};

/**
 * What CreateSIPParticipant takes for a trunk: a trunk provisioned in LiveKit by its id, or (id empty) the connection's
 * SIP server and credentials inline.
 */
export function sipTrunkArguments(trunk: OutboundTrunk): [trunkId: string, inline: SIPOutboundConfig | undefined] {
  if (trunk.livekitTrunkId) return [trunk.livekitTrunkId, undefined];
  return [
    '',
    new SIPOutboundConfig({
      hostname: trunk.sipAddress,
      transport: TRANSPORTS[trunk.sipTransport] ?? SIPTransport.SIP_TRANSPORT_AUTO,
      authUsername: trunk.username ?? '',
      authPassword: trunk.password ?? '',
    }),
  ];
}

export class LiveKitTelephony {
  readonly #rooms: RoomServiceClient;
  readonly #dispatch: AgentDispatchClient;
  readonly #sip: SipClient;

  constructor(readonly config: LiveKitConfig) {
    const host = config.url.replace(/^ws/, 'http');
    this.#rooms = new RoomServiceClient(host, config.apiKey, config.apiSecret);
    this.#dispatch = new AgentDispatchClient(host, config.apiKey, config.apiSecret);
    this.#sip = new SipClient(host, config.apiKey, config.apiSecret);
  }

  /** A room for one call, with the agent dispatched into it carrying the call's id. */
  async openCallRoom(room: string, callId: number): Promise<void> {
    const metadata = JSON.stringify({ call_id: callId });
    await this.#rooms.createRoom({ name: room, emptyTimeout: EMPTY_ROOM_TIMEOUT_S, metadata });
    await this.#dispatch.createDispatch(room, this.config.agentName, { metadata });
  }

  /**
   * Dials `to` into the room and resolves once the callee answers; rejects with the SDK's SipCallError (carrying the
   * SIP status) when the call is refused, unanswered or fails.
   */
  async dial(options: {
    room: string;
    to: string;
    from: string;
    trunk: OutboundTrunk;
    ringingTimeoutS: number;
    maxCallDurationS: number;
  }): Promise<SIPParticipantInfo> {
    const [trunkId, inline] = sipTrunkArguments(options.trunk);
    return this.#sip.createSipParticipant(
      trunkId,
      options.to,
      options.room,
      {
        fromNumber: options.from,
        participantIdentity: 'callee',
        participantName: options.to,
        waitUntilAnswered: true,
        ringingTimeout: options.ringingTimeoutS,
        maxCallDuration: options.maxCallDurationS,
        playDialtone: false,
      },
      inline,
    );
  }

  async closeRoom(room: string): Promise<void> {
    await this.#rooms.deleteRoom(room);
  }

  /** A token that joins only `room`, as `identity`, until `ttlSeconds` from now. */
  async participantToken(room: string, identity: string, ttlSeconds: number): Promise<string> {
    const token = new AccessToken(this.config.apiKey, this.config.apiSecret, { identity, ttl: ttlSeconds });
    token.addGrant({ room, roomJoin: true, canPublish: true, canSubscribe: true, canPublishData: true });
    return token.toJwt();
  }
}
