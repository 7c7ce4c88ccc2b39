/* libFuzzer target: arbitrary bytes as a Google credentials file (Application Default
   Credentials) and the answers of the endpoints it leads to: Google's token endpoint (the
   file's token_uri, refresh-token and JWT-bearer grants) and IAM Credentials'
   generateAccessToken (an impersonated file's service_account_impersonation_url), fed
   through a Cloud TPU or a GCE resolve with a fake transport and a fake signer in
   config.sign (a service-account key's JWT is "signed" with fixed bytes).

   Input: byte 0 chooses: bit 0 GCE (else Cloud TPU); bits 1-2 where the file is: 0
   options.credentials_file, 1 $GOOGLE_APPLICATION_CREDENTIALS, 2 gcloud's well-known file
   in $CLOUDSDK_CONFIG, 3 the one in $HOME/.config/gcloud; bit 3 the first API request
   answers 401 (the token is refused: one renewal); bit 4 options.project given (else the
   file's project_id or quota_project_id, else the metadata server's); bit 5 the signer fails;
   bit 6 a second resolve (the token kept while fresh). Byte 1 chooses statuses: bits 0-2 the
   token endpoint's first answer among 200, 200, 200, 400, 401, 403, 500, 302; bits 3-4
   generateAccessToken's among 200, 200, 401, 403; bits 5-6 the token endpoint's later answers
   among 200, 200, 400, 503. The rest is split at 0xFF bytes into the file's bytes, the token
   endpoint's first answer, generateAccessToken's answer, and the token endpoint's later
   answers (absent: the first again; the last part keeps any later 0xFF). The metadata server
   knows the project and a token of its own; the Compute and TPU APIs answer a fixed, valid
   group and node to any bearer but the one bit 3 refuses. No retries; no sleeping.

   Properties: no crash, leak (allocations counted) or undefined behaviour; create always
   succeeds; a failed resolve is one of the errors a bad file or answer can cause, with a
   message, http_status set exactly for CRES_ERR_HTTP_STATUS (and one of the statuses served);
   a token or generateAccessToken request goes only to an https:// URL or http:// to this
   machine (endpoint_ok: user info before the host, or a DNS name however it starts, is
   another machine; seed user_token_uri_userinfo_elsewhere), a token request is a well-formed grant (the JWT the signer signed, then its
   signature) without an Authorization header, generateAccessToken carries an access token the
   token endpoint answered; every Compute and TPU request carries "Authorization: Bearer T" with
   T exactly an access token the last token, generateAccessToken or metadata answer held (read
   by this file's own JSON reader), so a successful resolve used one; no URL, other header or
   non-token body holds a secret; a resolve makes at most two token and two
   generateAccessToken requests (one renewal); no error message or log line holds a secret of
   the input: the file's refresh_token, client_secret or a line of its private_key, an answer's
   access_token or accessToken, when it is at least 8 bytes long and not also public text (a
   string of the input that is not a secret, or a piece of cluster_resolver.h, which holds
   every fixed text the library prints).

   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
         tests/fuzz/fuzz_gcp_credentials.c -o build/fuzz_gcp_credentials
   Run from the repository's root or with an absolute source path: it reads
   cluster_resolver.h (found beside tests/fuzz/ by __FILE__) for the public text. */

#include "fuzz_common.h"

#include <sys/stat.h>
#include <unistd.h>

#define METADATA "http://metadata.google.internal/computeMetadata/v1/"
#define TPU_API "https://tpu.googleapis.com/v2/projects/"
#define COMPUTE "https://compute.googleapis.com/compute/v1/projects/"
#define METADATA_TOKEN "ya29.fuzz-metadata-server-token"
#define JWT_GRANT "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="
#define REFRESH_GRANT "grant_type=refresh_token&client_id="
#define MIN_SECRET 8

enum { FILE_PART, TOKEN_PART, IAM_PART, TOKEN2_PART, PARTS };

/* The Compute and TPU APIs' answers, the same to every request of a kind. */
#define TPU_NODE                                                                                         \
    "{\"name\": \"projects/p/locations/us-central1-b/nodes/fuzz-tpu\", \"acceleratorType\": \"v4-8\", " \
    "\"state\": \"READY\", \"health\": \"HEALTHY\", \"networkEndpoints\": [{\"ipAddress\": \"10.0.0.2\", " \
    "\"port\": 8470}]}"
#define GROUP_LIST                                                                                     \
    "{\"items\": [{\"instance\": \"https://www.googleapis.com/compute/v1/projects/fuzz-project/zones/" \
    "us-central1-b/instances/vm-0\", \"status\": \"RUNNING\"}]}"
#define ZONE_LIST "{\"items\": [{\"name\": \"vm-0\", \"networkInterfaces\": [{\"networkIP\": \"10.0.0.2\"}]}]}"
#define REFUSED                                                                                        \
    "{\"error\": {\"code\": 401, \"message\": \"Request had invalid authentication credentials.\", " \
    "\"status\": \"UNAUTHENTICATED\"}}"

#define METADATA_NAMES "fuzz-project fuzz-tpu fuzz-group us-central1-b vm-0"
#define SIGNER_REFUSES "fuzz signer: no such key"


/* ---------------------------------------------------------------------------------------
   A JSON reader of the test's own (RFC 8259, strings decoded), independent of the library's:
   every string of a document, with its role */

enum { J_KEY, J_MEMBER, J_OTHER };

typedef struct jstr {
    int role;          /* J_KEY, J_MEMBER (an object member's string value), J_OTHER */
    int depth;         /* of the object a key or member is in: 1 = the document's */
    char *key;         /* a member's key, decoded (NULL for others) */
    char *text;        /* decoded (may hold NULs) */
    size_t len;
    const char *raw;   /* the text as written, in the document */
    size_t raw_len;
} jstr;

typedef struct jdoc {
    jstr items[512];
    size_t count;
    int ok;            /* the whole document read */
} jdoc;

typedef struct jreader {
    const char *s;
    size_t n, i;
    jdoc *doc;
} jreader;

static void j_ws(jreader *r) {
    while (r->i < r->n && strchr(" \t\n\r", r->s[r->i]) && r->s[r->i]) r->i++;
}

static int j_hex(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

static int j_u4(jreader *r, size_t at, unsigned long *cp) {
    int k, h;
    *cp = 0;
    if (at + 4 > r->n) return 0;
    for (k = 0; k < 4; k++) {
        if ((h = j_hex(r->s[at + k])) < 0) return 0;
        *cp = (*cp << 4) | (unsigned long)h;
    }
    return 1;
}

static size_t j_utf8(unsigned long cp, char *out) {
    if (cp < 0x80) return out[0] = (char)cp, 1;
    if (cp < 0x800) return out[0] = (char)(0xC0 | (cp >> 6)), out[1] = (char)(0x80 | (cp & 63)), 2;
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 63));
        out[2] = (char)(0x80 | (cp & 63));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 63));
    out[2] = (char)(0x80 | ((cp >> 6) & 63));
    out[3] = (char)(0x80 | (cp & 63));
    return 4;
}

/* A string at r->i (the quote): decoded into a new *out. 0 when not a string. */
static int j_string(jreader *r, char **out, size_t *len, const char **raw, size_t *raw_len) {
    size_t start = ++r->i, o = 0;
    char *d;
    for (;;) {
        if (r->i >= r->n || (unsigned char)r->s[r->i] < 0x20) return 0;
        if (r->s[r->i] == '"') break;
        if (r->s[r->i] == '\\') r->i++;
        r->i++;
    }
    *raw = r->s + start;
    *raw_len = r->i - start;
    d = (char *)malloc(*raw_len + 1);
    CHECK(d != NULL);
    for (r->i = start; r->s[r->i] != '"';) {
        unsigned long cp, lo;
        char e;
        if (r->s[r->i] != '\\') {
            d[o++] = r->s[r->i++];
            continue;
        }
        e = r->s[r->i + 1];
        r->i += 2;
        if (e != 'u') {
            const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t", *p = e ? strchr(from, e) : NULL;
            if (!p) return free(d), 0;
            d[o++] = to[p - from];
            continue;
        }
        if (!j_u4(r, r->i, &cp)) return free(d), 0;
        r->i += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && r->i + 6 <= r->n && r->s[r->i] == '\\' && r->s[r->i + 1] == 'u' &&
            j_u4(r, r->i + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            r->i += 6;
        }
        o += j_utf8(cp, d + o); /* a lone surrogate as its 3 bytes: never equal to a C string */
    }
    r->i++;
    d[o] = '\0';
    *out = d;
    *len = o;
    return 1;
}

static void j_add(jreader *r, int role, int depth, char *key, char *text, size_t len, const char *raw,
                  size_t raw_len) {
    jdoc *doc = r->doc;
    if (doc->count == sizeof doc->items / sizeof doc->items[0]) { /* full: kept as public J_OTHER */
        free(key);
        free(text);
        return;
    }
    doc->items[doc->count].role = role;
    doc->items[doc->count].depth = depth;
    doc->items[doc->count].key = key;
    doc->items[doc->count].text = text;
    doc->items[doc->count].len = len;
    doc->items[doc->count].raw = raw;
    doc->items[doc->count].raw_len = raw_len;
    doc->count++;
}

static int j_value(jreader *r, int depth, const char *key);

static int j_number(jreader *r) {
    size_t st = r->i;
    if (r->i < r->n && r->s[r->i] == '-') r->i++;
    if (r->i >= r->n || !(r->s[r->i] >= '0' && r->s[r->i] <= '9')) return 0;
    if (r->s[r->i] == '0') r->i++;
    else
        while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9') r->i++;
    if (r->i < r->n && r->s[r->i] == '.') {
        r->i++;
        if (r->i >= r->n || !(r->s[r->i] >= '0' && r->s[r->i] <= '9')) return 0;
        while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9') r->i++;
    }
    if (r->i < r->n && (r->s[r->i] == 'e' || r->s[r->i] == 'E')) {
        r->i++;
        if (r->i < r->n && (r->s[r->i] == '+' || r->s[r->i] == '-')) r->i++;
        if (r->i >= r->n || !(r->s[r->i] >= '0' && r->s[r->i] <= '9')) return 0;
        while (r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9') r->i++;
    }
    return r->i > st;
}

/* key: the member this value is of (NULL in an array or at the top). */
static int j_value(jreader *r, int depth, const char *key) {
    j_ws(r);
    if (r->i >= r->n || depth > 200) return 0;
    if (r->s[r->i] == '{' || r->s[r->i] == '[') {
        int object = r->s[r->i] == '{', first = 1;
        char close = object ? '}' : ']';
        r->i++;
        for (;;) {
            j_ws(r);
            if (r->i < r->n && r->s[r->i] == close && first) return r->i++, 1;
            first = 0;
            if (object) {
                char *k;
                size_t klen, rawlen;
                const char *raw;
                if (r->i >= r->n || r->s[r->i] != '"' || !j_string(r, &k, &klen, &raw, &rawlen)) return 0;
                j_add(r, J_KEY, depth + 1, NULL, fuzz_dup_n(k, klen), klen, raw, rawlen);
                j_ws(r);
                if (r->i >= r->n || r->s[r->i] != ':') return free(k), 0;
                r->i++;
                if (!j_value(r, depth + 1, k)) return free(k), 0;
                free(k);
            } else if (!j_value(r, depth + 1, NULL)) {
                return 0;
            }
            j_ws(r);
            if (r->i < r->n && r->s[r->i] == ',') {
                r->i++;
                continue;
            }
            if (r->i < r->n && r->s[r->i] == close) return r->i++, 1;
            return 0;
        }
    }
    if (r->s[r->i] == '"') {
        char *text;
        size_t len, rawlen;
        const char *raw;
        if (!j_string(r, &text, &len, &raw, &rawlen)) return 0;
        j_add(r, key ? J_MEMBER : J_OTHER, depth, key ? fuzz_dup_n(key, strlen(key)) : NULL, text, len, raw, rawlen);
        return 1;
    }
    if (r->n - r->i >= 4 && memcmp(r->s + r->i, "true", 4) == 0) return r->i += 4, 1;
    if (r->n - r->i >= 5 && memcmp(r->s + r->i, "false", 5) == 0) return r->i += 5, 1;
    if (r->n - r->i >= 4 && memcmp(r->s + r->i, "null", 4) == 0) return r->i += 4, 1;
    return j_number(r);
}

/* The strings of s[0..n) into doc; doc->ok when it is one whole JSON value. */
static void j_read(jdoc *doc, const char *s, size_t n) {
    jreader r;
    memset(doc, 0, sizeof *doc);
    r.s = s;
    r.n = n;
    r.i = 0;
    r.doc = doc;
    doc->ok = j_value(&r, 0, NULL);
    j_ws(&r);
    doc->ok = doc->ok && r.i == n;
}

static void j_free(jdoc *doc) {
    size_t i;
    for (i = 0; i < doc->count; i++) {
        free(doc->items[i].key);
        free(doc->items[i].text);
    }
    doc->count = 0;
}

/* ---------------------------------------------------------------------------------------
   The case: the input, the fake endpoints' state, the secrets */

static const char *const secret_keys[] = {"refresh_token", "client_secret", "private_key", "access_token",
                                          "accessToken", "id_token"};

static int is_secret_key(const char *key) {
    size_t i;
    for (i = 0; key && i < sizeof secret_keys / sizeof secret_keys[0]; i++)
        if (strcmp(key, secret_keys[i]) == 0) return 1;
    return 0;
}

#define MAX_SECRETS 256
#define MAX_ISSUED 64

typedef struct fuzz_case {
    const uint8_t *part[PARTS];
    size_t len[PARTS];
    int present[PARTS];
    jdoc doc[PARTS];
    int flags, token_status, iam_status, token2_status;
    /* secrets of the input and where public text is */
    const char *secret[MAX_SECRETS];
    size_t secret_len[MAX_SECRETS];
    size_t secrets;
    /* the access tokens the last token, generateAccessToken or metadata answer held */
    char *issued[MAX_ISSUED];
    size_t issued_count;
    int token_requests, iam_requests, api_requests; /* of this resolve */
    int api_total;
    char *signed_input; /* the JWT signing input the signer got last */
    int suspect[MAX_SECRETS]; /* found where it must not be (check_no_secret) */
    char suspect_where[MAX_SECRETS][360];
    int collect;        /* the run again with the secrets changed: what the library said */
    char *seen;
    size_t seen_len, seen_cap;
} fuzz_case;

static char dir[64], named_path[128], sdk_dir[128], sdk_path[192], home_dir[128], home_path[192]; /* the files */
static char *header_text; /* cluster_resolver.h: every fixed text the library prints */
static size_t header_len;

static int contains(const char *hay, size_t hay_len, const char *needle, size_t n) {
    size_t i;
    if (n == 0 || n > hay_len) return 0;
    for (i = 0; i + n <= hay_len; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, n) == 0) return 1;
    return 0;
}

/* The fixed texts of this file that messages may quote: paths, names, answers. */
static const char *public_text[] = {dir, named_path, sdk_path, home_path, METADATA, TPU_API, COMPUTE, TPU_NODE,
                                    GROUP_LIST, ZONE_LIST, REFUSED, METADATA_NAMES, SIGNER_REFUSES};

/* Public: a piece of the header, of this file's texts, or of a string of the input that is
   not a secret. */
static int is_public(const fuzz_case *c, const char *s, size_t n) {
    size_t p, i;
    if (contains(header_text, header_len, s, n)) return 1;
    for (i = 0; i < sizeof public_text / sizeof public_text[0]; i++)
        if (contains(public_text[i], strlen(public_text[i]), s, n)) return 1;
    for (p = 0; p < PARTS; p++)
        for (i = 0; i < c->doc[p].count; i++) {
            const jstr *j = &c->doc[p].items[i];
            if (j->role == J_MEMBER && is_secret_key(j->key)) continue;
            if (contains(j->text, j->len, s, n) || contains(j->raw, j->raw_len, s, n)) return 1;
        }
    return 0;
}

static void add_secret(fuzz_case *c, const char *s, size_t n) {
    if (n < MIN_SECRET || c->secrets == MAX_SECRETS || memchr(s, '\0', n)) return;
    c->secret[c->secrets] = s;
    c->secret_len[c->secrets++] = n;
}

/* The secrets of every part: the values of secret keys (a private key line by line too). */
static void find_secrets(fuzz_case *c) {
    size_t p, i;
    for (p = 0; p < PARTS; p++)
        for (i = 0; i < c->doc[p].count; i++) {
            const jstr *j = &c->doc[p].items[i];
            if (j->role != J_MEMBER || !is_secret_key(j->key)) continue;
            add_secret(c, j->text, j->len);
            if (strcmp(j->key, "private_key") == 0) {
                const char *line = j->text, *end = j->text + j->len;
                while (line < end) {
                    const char *nl = memchr(line, '\n', (size_t)(end - line));
                    size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
                    add_secret(c, line, n);
                    line += n + 1;
                }
            }
        }
}

/* No secret in text (a message, a log line, a URL, a header, a body). A secret found there
   that is not public text is a suspect: LLVMFuzzerTestOneInput runs the input again with every
   secret changed (rotate_secrets) and collects what the library says then; a suspect still in
   it came from elsewhere (a message made of public pieces, a path and a quote around it:
   "...CREDENTIALS \"/tm..."), else it leaked. In the run that collects, text is kept. */
static void check_no_secret(fuzz_case *c, const char *text, size_t n, const char *where) {
    size_t i;
    if (c->collect) {
        if (c->seen_len + n + 2 > c->seen_cap) {
            c->seen_cap = 2 * (c->seen_len + n + 2);
            c->seen = (char *)realloc(c->seen, c->seen_cap);
            CHECK(c->seen != NULL);
        }
        memcpy(c->seen + c->seen_len, text, n);
        c->seen_len += n;
        c->seen[c->seen_len++] = '\n'; /* no suspect spans two texts */
        return;
    }
    for (i = 0; i < c->secrets; i++)
        if (!c->suspect[i] && contains(text, n, c->secret[i], c->secret_len[i]) &&
            !is_public(c, c->secret[i], c->secret_len[i])) {
            c->suspect[i] = 1;
            snprintf(c->suspect_where[i], sizeof c->suspect_where[i], "%s: %.*s", where, (int)(n > 300 ? 300 : n),
                     text);
        }
}

/* Every secret's text in the input (data, which the parts point into) changed in place, its
   letters and digits rotated (b for a, 0 for 9; escapes kept), so it stays the same kind of
   JSON string. */
static void rotate_secrets(const fuzz_case *c, const uint8_t *data, uint8_t *copy) {
    size_t p, i, k;
    for (p = 0; p < PARTS; p++)
        for (i = 0; i < c->doc[p].count; i++) {
            const jstr *j = &c->doc[p].items[i];
            uint8_t *s = copy + ((const uint8_t *)j->raw - data);
            if (j->role != J_MEMBER || !is_secret_key(j->key)) continue;
            for (k = 0; k < j->raw_len; k++) {
                if (s[k] == '\\') {
                    k += s[k + 1] == 'u' ? 5 : 1;
                    continue;
                }
                if ((s[k] >= 'a' && s[k] < 'z') || (s[k] >= 'A' && s[k] < 'Z') || (s[k] >= '0' && s[k] < '9')) s[k]++;
                else if (s[k] == 'z' || s[k] == 'Z') s[k] -= 25;
                else if (s[k] == '9') s[k] = '0';
            }
        }
}

/* The access tokens under key at the top of part p's answer, as the API must now get one. */
static void set_issued(fuzz_case *c, int p, const char *key) {
    size_t i;
    for (i = 0; i < c->issued_count; i++) free(c->issued[i]);
    c->issued_count = 0;
    if (p < 0) {
        c->issued[c->issued_count++] = fuzz_dup_n(METADATA_TOKEN, strlen(METADATA_TOKEN));
        return;
    }
    for (i = 0; i < c->doc[p].count && c->issued_count < MAX_ISSUED; i++) {
        const jstr *j = &c->doc[p].items[i];
        if (j->role == J_MEMBER && j->depth == 1 && strcmp(j->key, key) == 0)
            c->issued[c->issued_count++] = fuzz_dup_n(j->text, j->len);
    }
}

/* "Bearer T" with T one of the tokens issued last. */
static void check_bearer(const fuzz_case *c, const char *value) {
    size_t i;
    CHECK(value != NULL && strncmp(value, "Bearer ", 7) == 0);
    for (i = 0; i < c->issued_count; i++)
        if (strcmp(value + 7, c->issued[i]) == 0) return;
    fprintf(stderr, "bearer not issued: %s\n", value);
    CHECK(!"the bearer is not a token the fake answered");
}

/* ---------------------------------------------------------------------------------------
   The fake endpoints */

static const char *header_of(const cres_http_request *req, const char *name) {
    size_t i;
    for (i = 0; i < req->headers_count; i++)
        if (strcmp(req->headers[i].name, name) == 0) return req->headers[i].value;
    return NULL;
}

/* A dot-separated piece of an IPv4 literal as inet_aton reads one: decimal, octal or 0x hex. */
static int inet_label(const char *s, size_t n) {
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        return strspn(s + 2, "0123456789abcdefABCDEF") >= n - 2;
    return n > 0 && strspn(s, "0123456789") >= n;
}

/* Where a secret may go: https://host..., or http:// to this machine: an authority without
   user info ('@') whose host is localhost, [::1], or starts "127." and is an IPv4 literal (a
   loopback address) or no host name at all (an empty label or a character no DNS name has:
   curl reaches nothing);
   then ':' and anything (a port, or what curl refuses). "http://localhost:80@elsewhere/" and
   "http://127.elsewhere.example/" are other machines. */
static int endpoint_ok(const char *url) {
    size_t n, host, at, len;
    int numeric = 1, empty = 0;
    if (strncmp(url, "https://", 8) == 0) return url[8] && url[8] != '/';
    if (strncmp(url, "http://", 7) != 0) return 0;
    url += 7;
    n = strcspn(url, "/?#");
    if (memchr(url, '@', n)) return 0;
    host = url[0] == '[' ? strcspn(url, "]") + 1 : strcspn(url, ":/?#");
    if (host > n || (host < n && url[host] != ':')) return 0;
    if ((host == 9 && strncmp(url, "localhost", 9) == 0) || (host == 5 && strncmp(url, "[::1]", 5) == 0)) return 1;
    if (host < 4 || strncmp(url, "127.", 4) != 0) return 0;
    for (at = 0; at <= host; at += len + 1) {
        len = strcspn(url + at, ".:/?#");
        if (at + len > host) len = host - at;
        numeric &= inet_label(url + at, len);
        empty |= len == 0;
    }
    return numeric || empty || strspn(url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") < host;
}

static int b64url_text(const char *s, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", s[i]) || !s[i]) return 0;
    return 1;
}

static const unsigned char fake_signature[8] = {'f', 'u', 'z', 'z', 0xff, 0, 1, '.'};
#define FAKE_SIGNATURE_B64 "ZnV6ev8AAS4"

static void check_grant(fuzz_case *c, const cres_http_request *req) {
    size_t n = strlen(JWT_GRANT);
    CHECK(strcmp(req->method, "POST") == 0);
    CHECK(header_of(req, "Authorization") == NULL);
    CHECK(header_of(req, "Content-Type") && strcmp(header_of(req, "Content-Type"), "application/x-www-form-urlencoded") == 0);
    CHECK(req->body && strlen(req->body) == req->body_len);
    if (strncmp(req->body, JWT_GRANT, n) == 0) {
        const char *a = req->body + n, *dot = strrchr(a, '.');
        CHECK(c->signed_input != NULL && dot != NULL);
        CHECK((size_t)(dot - a) == strlen(c->signed_input) && memcmp(a, c->signed_input, (size_t)(dot - a)) == 0);
        CHECK(strcmp(dot + 1, FAKE_SIGNATURE_B64) == 0);
        return;
    }
    CHECK(strncmp(req->body, REFRESH_GRANT, strlen(REFRESH_GRANT)) == 0);
    CHECK(strstr(req->body, "&client_secret=") && strstr(req->body, "&refresh_token="));
}

static cres_result answer(fuzz_case *c, int p, int status, cres_http_response *resp, const cres_allocator *alloc) {
    return fuzz_answer(resp, alloc, status, c->part[p], c->len[p]);
}

static cres_result fake_perform(void *user, const cres_http_request *req, cres_http_response *resp,
                                const cres_allocator *alloc, cres_error *err) {
    fuzz_case *c = (fuzz_case *)user;
    const char *auth = header_of(req, "Authorization");
    size_t i;
    (void)err;
    check_no_secret(c, req->url, strlen(req->url), "a URL");
    for (i = 0; i < req->headers_count; i++)
        if (strcmp(req->headers[i].name, "Authorization") != 0)
            check_no_secret(c, req->headers[i].value, strlen(req->headers[i].value), "a header");
    if (strncmp(req->url, METADATA, strlen(METADATA)) == 0) {
        const char *path = req->url + strlen(METADATA);
        CHECK(strcmp(req->method, "GET") == 0 && auth == NULL);
        if (strcmp(path, "project/project-id") == 0) return fuzz_answer(resp, alloc, 200, "fuzz-project", 12);
        if (strcmp(path, "instance/service-accounts/default/token") == 0) {
            static const char token[] = "{\"access_token\": \"" METADATA_TOKEN "\", \"expires_in\": 3599}";
            set_issued(c, -1, NULL);
            return fuzz_answer(resp, alloc, 200, token, sizeof token - 1);
        }
        return fuzz_answer(resp, alloc, 404, "Not Found", 9);
    }
    if ((strncmp(req->url, TPU_API, strlen(TPU_API)) == 0 || strncmp(req->url, COMPUTE, strlen(COMPUTE)) == 0) &&
        !(req->body && (strncmp(req->body, "grant_type=", 11) == 0 || strncmp(req->body, "{\"delegates\":", 13) == 0))) {
        const char *body = strstr(req->url, "/listInstances") ? GROUP_LIST
                           : strstr(req->url, "/instances?")  ? ZONE_LIST
                                                              : TPU_NODE;
        check_bearer(c, auth);
        if (req->body) check_no_secret(c, req->body, req->body_len, "an API request's body");
        c->api_requests++;
        if ((c->flags & 8) && ++c->api_total == 1) return fuzz_answer(resp, alloc, 401, REFUSED, strlen(REFUSED));
        return fuzz_answer(resp, alloc, 200, body, strlen(body));
    }
    /* a secret's endpoint, named by the file */
    CHECK(endpoint_ok(req->url));
    CHECK(req->body != NULL);
    if (strncmp(req->body, "grant_type=", 11) == 0) {
        int later = c->token_requests++ > 0, p = later && c->present[TOKEN2_PART] ? TOKEN2_PART : TOKEN_PART;
        int status = later ? c->token2_status : c->token_status;
        CHECK(c->token_requests <= 2);
        check_grant(c, req);
        if (status == 200) set_issued(c, p, "access_token");
        return answer(c, p, status, resp, alloc);
    }
    CHECK(strncmp(req->body, "{\"delegates\":", 13) == 0); /* generateAccessToken, nothing else */
    CHECK(strcmp(req->method, "POST") == 0);
    check_no_secret(c, req->body, req->body_len, "generateAccessToken's body");
    check_bearer(c, auth); /* the source's token */
    CHECK(++c->iam_requests <= 2);
    if (c->iam_status == 200) set_issued(c, IAM_PART, "accessToken");
    return answer(c, IAM_PART, c->iam_status, resp, alloc);
}

/* config.sign: RS256 over base64url(header).base64url(claims) with a private_key of the file. */
static cres_result fake_sign(void *user, const cres_sign_request *req, unsigned char *sig, size_t *sig_len,
                             cres_error *err) {
    fuzz_case *c = (fuzz_case *)user;
    const char *dot = memchr(req->data, '.', req->data_len);
    size_t i;
    int known = 0;
    CHECK(strcmp(req->algorithm, "RS256") == 0);
    CHECK(req->private_key_pem != NULL);
    for (i = 0; i < c->doc[FILE_PART].count; i++) {
        const jstr *j = &c->doc[FILE_PART].items[i];
        known |= j->role == J_MEMBER && strcmp(j->key, "private_key") == 0 && strcmp(j->text, req->private_key_pem) == 0;
    }
    CHECK(known || !c->doc[FILE_PART].ok);
    CHECK(dot != NULL && b64url_text((const char *)req->data, (size_t)(dot - (const char *)req->data)) &&
          b64url_text(dot + 1, req->data_len - (size_t)(dot + 1 - (const char *)req->data)));
    free(c->signed_input);
    c->signed_input = fuzz_dup_n((const char *)req->data, req->data_len);
    if (c->flags & 32) return cres_error_set(err, CRES_ERR_ENVIRONMENT, SIGNER_REFUSES);
    memcpy(sig, fake_signature, sizeof fake_signature);
    *sig_len = sizeof fake_signature;
    return CRES_OK;
}

static void check_log(void *user, cres_log_level level, const char *message) {
    fuzz_check_log(NULL, level, message);
    check_no_secret((fuzz_case *)user, message, strlen(message), "a log line");
}

static const char *fake_getenv(void *user, const char *name) {
    int where = (((const fuzz_case *)user)->flags >> 1) & 3;
    if (where == 1 && strcmp(name, "GOOGLE_APPLICATION_CREDENTIALS") == 0) return named_path;
    if (where == 2 && strcmp(name, "CLOUDSDK_CONFIG") == 0) return sdk_dir;
    if (where >= 2 && strcmp(name, "HOME") == 0) return home_dir;
    return NULL;
}

/* ---------------------------------------------------------------------------------------
   Setup: the files' directories (in FUZZ_DIR), the header's text */

static void load_header(void) {
    const char *tail = strstr(__FILE__, "tests/fuzz/");
    char path[4096];
    FILE *f;
    long n;
    snprintf(path, sizeof path, "%.*scluster_resolver.h", tail ? (int)(tail - __FILE__) : 0, __FILE__);
    f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_gcp_credentials: cannot read %s: run from the repository's root\n", path);
        abort();
    }
    CHECK(fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0);
    header_text = (char *)malloc((size_t)n);
    CHECK(header_text && fread(header_text, 1, (size_t)n, f) == (size_t)n);
    header_len = (size_t)n;
    fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    load_header();
    snprintf(dir, sizeof dir, "%s", fuzz_dir());
    snprintf(named_path, sizeof named_path, "%s/credentials.json", dir);
    snprintf(sdk_dir, sizeof sdk_dir, "%s/sdk", dir);
    snprintf(sdk_path, sizeof sdk_path, "%s/application_default_credentials.json", sdk_dir);
    snprintf(home_dir, sizeof home_dir, "%s/home", dir);
    CHECK(mkdir(sdk_dir, 0700) == 0 && mkdir(home_dir, 0700) == 0);
    snprintf(home_path, sizeof home_path, "%s/.config", home_dir);
    CHECK(mkdir(home_path, 0700) == 0);
    snprintf(home_path, sizeof home_path, "%s/.config/gcloud", home_dir);
    CHECK(mkdir(home_path, 0700) == 0);
    snprintf(home_path, sizeof home_path, "%s/.config/gcloud/application_default_credentials.json", home_dir);
    return 0;
}

/* ---------------------------------------------------------------------------------------
   The run */

static void split(fuzz_case *c, const uint8_t *data, size_t size) {
    static const int token_statuses[8] = {200, 200, 200, 400, 401, 403, 500, 302};
    static const int iam_statuses[4] = {200, 200, 401, 403};
    static const int later_statuses[4] = {200, 200, 400, 503};
    size_t present, i;
    memset(c, 0, sizeof *c);
    c->flags = data[0];
    c->token_status = token_statuses[data[1] & 7];
    c->iam_status = iam_statuses[(data[1] >> 3) & 3];
    c->token2_status = later_statuses[(data[1] >> 5) & 3];
    present = fuzz_split(data, size, 2, c->part, c->len, PARTS);
    for (i = 0; i < PARTS; i++) {
        c->present[i] = i < present;
        j_read(&c->doc[i], (const char *)c->part[i], c->len[i]);
    }
    find_secrets(c);
}

static const char *file_path(const fuzz_case *c) {
    int where = (c->flags >> 1) & 3;
    return where <= 1 ? named_path : where == 2 ? sdk_path : home_path;
}

/* A failed resolve: one of the errors a bad file or answer causes, with a message;
   http_status one the fakes served, set for CRES_ERR_HTTP_STATUS, and for the token endpoint
   refusing the credentials (CRES_ERR_ENVIRONMENT after a 400 or 401: "HTTP status when one
   caused it"); else 0. */
static void check_failure(fuzz_case *c, cres_result r, const cres_error *err) {
    static const cres_result allowed[] = {CRES_ERR_ENVIRONMENT, CRES_ERR_UNSUPPORTED, CRES_ERR_UNEXPECTED_RESPONSE,
                                          CRES_ERR_HTTP_STATUS, CRES_ERR_LIMIT};
    static const int statuses[] = {400, 401, 403, 500, 503, 302};
    size_t i;
    int known = 0, served = 0;
    fuzz_check_error(r, err);
    for (i = 0; i < sizeof allowed / sizeof allowed[0]; i++) known |= r == allowed[i];
    CHECK(known);
    for (i = 0; i < sizeof statuses / sizeof statuses[0]; i++) served |= err->http_status == statuses[i];
    if (r == CRES_ERR_HTTP_STATUS) CHECK(served);
    else if (r == CRES_ERR_ENVIRONMENT && err->http_status) CHECK(err->http_status == 400 || err->http_status == 401);
    else CHECK(err->http_status == 0);
    check_no_secret(c, err->message, strlen(err->message), "the message");
}

static void resolve(fuzz_case *c, cres_resolver *r) {
    cres_cluster_spec *spec = NULL;
    cres_error err;
    cres_result res;
    c->token_requests = c->iam_requests = c->api_requests = 0;
    res = cres_resolve(r, &spec, &err);
    if (res != CRES_OK) {
        CHECK(spec == NULL);
        check_failure(c, res, &err);
        return;
    }
    fuzz_check_error(res, &err);
    CHECK(spec != NULL && fuzz_spec_tasks(spec) == 1);
    CHECK(c->api_requests >= 1); /* each carried a bearer issued last (check_bearer) */
    cres_spec_free(spec);
}

/* One run of the input: split, file written, a resolver made, one or two resolves. */
static void run(fuzz_case *c, const uint8_t *data, size_t size, int collect) {
    fuzz_counter count = {0};
    cres_config config;
    cres_resolver *r = NULL;
    cres_error err;
    cres_result res;
    split(c, data, size);
    c->collect = collect;
    fuzz_write_file(file_path(c), c->part[FILE_PART], c->len[FILE_PART]);

    fuzz_canned_config(&config, fake_perform, c);
    config.allocator.alloc = fuzz_count_alloc;
    config.allocator.free = fuzz_count_free;
    config.allocator.user = &count;
    config.getenv.fn = fake_getenv;
    config.getenv.user = c;
    config.sign.fn = fake_sign;
    config.sign.user = c;
    config.log.fn = check_log;
    config.log.user = c;
    if (c->flags & 1) {
        cres_gce_options o;
        memset(&o, 0, sizeof o);
        o.config = &config;
        o.instance_group = "fuzz-group";
        o.zone = "us-central1-b";
        o.instance_name = "vm-0";
        o.project = (c->flags & 16) ? "fuzz-project" : NULL;
        o.credentials_file = ((c->flags >> 1) & 3) == 0 ? named_path : NULL;
        res = cres_gce_resolver_create(&o, &r, &err);
    } else {
        cres_tpu_options o;
        memset(&o, 0, sizeof o);
        o.config = &config;
        o.tpu = "fuzz-tpu";
        o.zone = "us-central1-b";
        o.project = (c->flags & 16) ? "fuzz-project" : NULL;
        o.credentials_file = ((c->flags >> 1) & 3) == 0 ? named_path : NULL;
        res = cres_tpu_resolver_create(&o, &r, &err);
    }
    CHECK(res == CRES_OK);
    resolve(c, r);
    if (c->flags & 64) resolve(c, r);
    cres_resolver_free(r);
    CHECK(count.live == 0);
}

static void free_case(fuzz_case *c) {
    size_t i;
    for (i = 0; i < PARTS; i++) j_free(&c->doc[i]);
    for (i = 0; i < c->issued_count; i++) free(c->issued[i]);
    free(c->signed_input);
    free(c->seen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static fuzz_case c, again; /* large: not on the stack */
    uint8_t *changed;
    size_t i;
    if (size < 2) return 0;
    run(&c, data, size, 0);
    for (i = 0; i < c.secrets && !c.suspect[i]; i++) {}
    if (i < c.secrets) { /* a secret where it must not be: its own, or a coincidence? */
        changed = (uint8_t *)malloc(size);
        CHECK(changed != NULL);
        memcpy(changed, data, size);
        rotate_secrets(&c, data, changed);
        run(&again, changed, size, 1);
        for (i = 0; i < c.secrets; i++)
            if (c.suspect[i] && !contains(again.seen, again.seen_len, c.secret[i], c.secret_len[i])) {
                fprintf(stderr, "a secret of %zu bytes (%.*s) in %s\n", c.secret_len[i], (int)c.secret_len[i],
                        c.secret[i], c.suspect_where[i]);
                CHECK(!"a secret leaked");
            }
        free_case(&again);
        free(changed);
    }
    free_case(&c);
    return 0;
}
