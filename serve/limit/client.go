package limit

import (
	"net"
	"net/netip"
	"strings"
)

// ClientKey names the client of a request for its buckets: the address
// in header (the last of a comma-separated list, which is what the
// nearest proxy appended) if header is set and holds one, else the host
// of remoteAddr ("host:port"). An IPv6 address stands for its /64, which
// one subscriber usually holds whole; an IPv4-mapped IPv6 address is the
// IPv4 one. If neither parses, the key is remoteAddr itself.
func ClientKey(remoteAddr, header string) string {
	if header != "" {
		last := header
		if i := strings.LastIndexByte(header, ','); i >= 0 {
			last = header[i+1:]
		}
		if k, ok := addrKey(strings.TrimSpace(last)); ok {
			return k
		}
	}
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	if k, ok := addrKey(host); ok {
		return k
	}
	return remoteAddr
}

// addrKey parses an address (bracketed or with a port allowed) and
// returns its key.
func addrKey(s string) (string, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return prefixKey(ap.Addr()), true
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	a, err := netip.ParseAddr(s)
	if err != nil {
		return "", false
	}
	return prefixKey(a), true
}

func prefixKey(a netip.Addr) string {
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}

// Prefix56 is the IPv6 /56 that holds a client key's /64 ("" for an IPv4
// key, or a key that is no prefix): the block a subscriber is often given
// whole, bounded as one besides each of its /64s.
func Prefix56(key string) string {
	p, err := netip.ParsePrefix(key)
	if err != nil || !p.Addr().Is6() {
		return ""
	}
	q, _ := p.Addr().Prefix(56)
	return q.String()
}
