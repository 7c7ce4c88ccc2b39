/* The fuzz targets' model of how the library writes a launcher's host as an address (manual
   section 9): "name:port", an IPv6 literal (hex digits, '.' and two ':' at least) as "[name]:port"; a name
   that an address reader could not split back (empty, over 255 bytes, brackets, blanks,
   control characters, ':' outside an IPv6 literal) is refused. Returns 0 for a refused name;
   else writes the address to out. Bytes over 0x7f pass here: the library also checks UTF-8,
   so for those only a success can be checked against `out`. */
#ifndef HOST_MODEL_H
#define HOST_MODEL_H

#include <stdio.h>
#include <string.h>

/* Not every target uses both: the unused one must not trip -Wunused-function. */
#if defined(__GNUC__) || defined(__clang__)
#define HOST_MODEL_HELPER static __attribute__((unused))
#else
#define HOST_MODEL_HELPER static
#endif

HOST_MODEL_HELPER int model_host_address(const char *host, int port, char *out, size_t cap) {
    size_t n = strlen(host), i;
    const char *colon = strchr(host, ':');
    int v6 = colon != NULL;
    if (n == 0 || n > 255 || (v6 && !strchr(colon + 1, ':'))) return 0; /* IPv6 has two ':' at least */
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)host[i];
        if (c <= ' ' || c == 0x7f || c == '[' || c == ']') return 0;
        if (v6 && !strchr("0123456789abcdefABCDEF:.", (char)c)) return 0;
    }
    snprintf(out, cap, v6 ? "[%s]:%d" : "%s:%d", host, port);
    return 1;
}

/* Whether the model takes host as a launcher's host (at any port). Sets *unsure when host has
   bytes over 0x7f: whether the library takes those is its UTF-8 check's call. */
HOST_MODEL_HELPER int model_host_accepted(const char *host, int *unsure) {
    char address[300];
    const char *c;
    int ok = model_host_address(host, 1, address, sizeof address);
    for (c = host; *c; c++) *unsure |= (unsigned char)*c >= 0x80;
    return ok;
}

#endif
