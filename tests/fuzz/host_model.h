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

static int model_host_address(const char *host, int port, char *out, size_t cap) {
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

#endif
