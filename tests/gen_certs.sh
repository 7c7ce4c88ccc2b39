#!/usr/bin/env bash
# Makes throw-away TLS material for the HTTPS tests in the directory given as $1:
#   ca.pem, ca.key              a test CA
#   server.pem, server.key      a server certificate signed by that CA for
#                               127.0.0.1, ::1 and localhost (subjectAltName)
#   other-ca.pem, other-ca.key  a second, unrelated CA (for "CA does not match" tests)
#   elsewhere.pem, elsewhere.key  signed by ca.pem for elsewhere.invalid only (a server whose
#                               trusted certificate names another host)
# and with --client-certs after DIR also the client certificates (extendedKeyUsage clientAuth,
# signed by ca.pem; what tests/fake_api.py --client-ca ca.pem accepts):
#   client.pem, client.key      subject CN=jane, O=ml-team (a kubeconfig user's certificate)
#   client2.pem, client2.key    subject CN=exec-user, O=plugins (what an exec plugin hands out)
# (Opt-in, so a directory made without it holds exactly the eight files above, as
# tests/k8s/test_fake_api.py checks.)
# P-256 (ECDSA) keys keep it fast (about 0.1 s). Idempotent: when the files exist and the
# server (and client) certificates still verify against ca.pem, nothing is regenerated; client
# certificates added to a complete directory are signed by its ca.pem, which stays. Files are
# made in a scratch directory and moved into place, so a reader never sees a half-written file.
set -euo pipefail

dir=${1:?usage: gen_certs.sh DIR [--client-certs]}
clients=no
case "${2-}" in
    "") ;;
    --client-certs) clients=yes ;;
    *) echo "usage: gen_certs.sh DIR [--client-certs]" >&2; exit 2 ;;
esac
mkdir -p "$dir"
files=(ca.pem ca.key server.pem server.key other-ca.pem other-ca.key elsewhere.pem elsewhere.key)
client_files=(client.pem client.key client2.pem client2.key)

complete() { # complete CERT-TO-VERIFY FILE...
    local f pem=$1; shift
    for f in "$@"; do [ -s "$dir/$f" ] || return 1; done
    openssl verify -CAfile "$dir/ca.pem" "$dir/$pem" >/dev/null 2>&1
}
complete_clients() {
    complete client.pem "${client_files[@]}" &&
        openssl verify -CAfile "$dir/ca.pem" "$dir/client2.pem" >/dev/null 2>&1
}
need_base=no need_clients=no
complete server.pem "${files[@]}" || need_base=yes
if [ $clients = yes ] && { [ $need_base = yes ] || ! complete_clients; }; then need_clients=yes; fi
[ $need_base = yes ] || [ $need_clients = yes ] || exit 0

tmp=$(mktemp -d "$dir/.gen_certs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
made=()

make_ca() { # make_ca NAME COMMON-NAME
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
        -keyout "$tmp/$1.key" -out "$tmp/$1.pem" -subj "/CN=$2" \
        -addext "basicConstraints=critical,CA:TRUE" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}

# OpenSSL 3 signs with -CA directly; -addext overrides the CA-ish defaults of req -x509.
make_leaf() { # make_leaf NAME SUBJECT EXTENDED-KEY-USAGE [SUBJECT-ALT-NAMES]; signed by $ca
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
        -CA "$ca/ca.pem" -CAkey "$ca/ca.key" \
        -keyout "$tmp/$1.key" -out "$tmp/$1.pem" -subj "$2" \
        -addext "basicConstraints=critical,CA:FALSE" \
        -addext "keyUsage=critical,digitalSignature" \
        -addext "extendedKeyUsage=$3" ${4:+-addext "subjectAltName=$4"} 2>/dev/null
    openssl verify -CAfile "$ca/ca.pem" "$tmp/$1.pem" >/dev/null
}

ca=$dir
if [ $need_base = yes ]; then
    ca=$tmp
    make_ca ca "cluster_resolver test CA"
    make_ca other-ca "cluster_resolver unrelated CA"
    make_leaf server /CN=localhost serverAuth "IP:127.0.0.1,IP:::1,DNS:localhost"
    make_leaf elsewhere /CN=elsewhere.invalid serverAuth "DNS:elsewhere.invalid"
    made+=("${files[@]}")
fi
if [ $need_clients = yes ]; then
    make_leaf client /CN=jane/O=ml-team clientAuth
    make_leaf client2 /CN=exec-user/O=plugins clientAuth
    made+=("${client_files[@]}")
fi

chmod 600 "$tmp"/*.key
# the CA last: a reader that sees the new ca.pem sees the certificates it signed
for f in "${made[@]}"; do [ "$f" = ca.pem ] || mv -f "$tmp/$f" "$dir/$f"; done
[ $need_base = no ] || mv -f "$tmp/ca.pem" "$dir/ca.pem"
