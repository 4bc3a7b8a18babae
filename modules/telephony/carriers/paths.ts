// Where carriers reach the service: the voice webhook of inbound calls, the status and answering-machine callbacks of
// outbound ones (one URL per call, so a callback names its call even when the dial's answer was lost), and the Media
// Streams socket both kinds connect their audio to. Carriers sign the full URL, so it must match what they were given.

export const MEDIA_STREAM_PATH = '/telephony/media-stream';
export const VOICE_WEBHOOK_PATH = '/telephony/twilio/voice';

export const carrierStatusPath = (kind: string, callSid: string) => `/telephony/${kind}/status/${callSid}`;
export const machineDetectionPath = (kind: string, callSid: string) => `/telephony/${kind}/machine-detection/${callSid}`;
/** The callbacks of a warm transfer's call to the person it consults: `status`, `answer` (the key they pressed), `machine-detection`. */
export const warmTransferPath = (kind: string, token: string, event: 'status' | 'answer' | 'machine-detection') =>
  `/telephony/${kind}/warm-transfer/${token}/${event}`;
