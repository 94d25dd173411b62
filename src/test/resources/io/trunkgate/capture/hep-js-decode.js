// Decodes each HEP packet received on a UDP port with hep-js, sipcapture's HEP library (npm), and prints what it
// read as one JSON line; the first line says the port.
const dgram = require('dgram');
const hep = require('hep-js');

const socket = dgram.createSocket('udp4');
socket.on('message', (packet) => {
  const decoded = hep.decapsulate(packet);
  process.stdout.write(JSON.stringify(decoded === false ? { error: 'not a HEP packet' } : decoded) + '\n');
});
socket.bind(0, '127.0.0.1', () => process.stdout.write('listening ' + socket.address().port + '\n'));
