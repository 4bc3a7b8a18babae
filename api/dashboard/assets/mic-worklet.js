// The microphone's samples, handed from the audio thread to the call client (call-client.js) a render quantum at a time.
class Mic extends AudioWorkletProcessor {
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (channel) this.port.postMessage(channel.slice(0));
    return true;
  }
}
registerProcessor('mic', Mic);
