#!/usr/bin/env bash
# Makes throw-away TLS material for the HTTPS tests in the directory given as $1:
#   ca.pem, ca.key              a test CA
#   server.pem, server.key      a server certificate signed by that CA for
#                               127.0.0.1, ::1 and localhost (subjectAltName)
#   other-ca.pem, other-ca.key  a second, unrelated CA (for "CA does not match" tests)
#   elsewhere.pem, elsewhere.key  signed by ca.pem for elsewhere.invalid only (a server whose
#                               trusted certificate names another host)
# P-256 (ECDSA) keys keep it fast (about 0.1 s). Idempotent: when the files exist and the
# server certificate still verifies against ca.pem, nothing is regenerated. Files are made in a
# scratch directory and moved into place, so a reader never sees a half-written file.
set -euo pipefail

dir=${1:?usage: gen_certs.sh DIR}
mkdir -p "$dir"
files=(ca.pem ca.key server.pem server.key other-ca.pem other-ca.key elsewhere.pem elsewhere.key)

complete() {
    local f
    for f in "${files[@]}"; do [ -s "$dir/$f" ] || return 1; done
    openssl verify -CAfile "$dir/ca.pem" "$dir/server.pem" >/dev/null 2>&1
}
complete && exit 0

tmp=$(mktemp -d "$dir/.gen_certs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

make_ca() { # make_ca NAME COMMON-NAME
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
        -keyout "$tmp/$1.key" -out "$tmp/$1.pem" -subj "/CN=$2" \
        -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}

make_ca ca "cluster_resolver test CA"
make_ca other-ca "cluster_resolver unrelated CA"
# OpenSSL 3 signs with -CA directly; -addext overrides the CA-ish defaults of req -x509.
make_server() { # make_server NAME COMMON-NAME SUBJECT-ALT-NAMES
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
        -CA "$tmp/ca.pem" -CAkey "$tmp/ca.key" \
        -keyout "$tmp/$1.key" -out "$tmp/$1.pem" -subj "/CN=$2" \
        -addext "basicConstraints=critical,CA:FALSE" \
        -addext "keyUsage=critical,digitalSignature" \
        -addext "extendedKeyUsage=serverAuth" \
        -addext "subjectAltName=$3" 2>/dev/null
    openssl verify -CAfile "$tmp/ca.pem" "$tmp/$1.pem" >/dev/null
}

make_server server localhost "IP:127.0.0.1,IP:::1,DNS:localhost"
make_server elsewhere elsewhere.invalid "DNS:elsewhere.invalid"

chmod 600 "$tmp"/*.key
for f in "${files[@]}"; do mv -f "$tmp/$f" "$dir/$f"; done
