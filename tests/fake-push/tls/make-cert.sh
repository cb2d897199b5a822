#!/bin/sh
# Makes the TLS material of the fake push service: a test CA and a certificate for 127.0.0.1/localhost
# signed by it (Deno's TLS, rustls, refuses a self-signed CA certificate used as a server certificate).
# Test-only keys, committed so tests need no openssl; valid for 100 years. Rerun to replace them.
set -eu
cd "$(dirname "$0")"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 36500 \
  -subj "/CN=Factorio Panel test push CA" -keyout ca-key.pem -out ca.pem \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=127.0.0.1" \
  -keyout key.pem -out server.csr
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' > ext.cnf
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 36500 -extfile ext.cnf -out cert.pem
rm -f server.csr ext.cnf ca.srl ca-key.pem
