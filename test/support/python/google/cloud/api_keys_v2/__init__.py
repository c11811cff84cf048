"""A stand-in for google-cloud-api-keys' `api_keys_v2` (not on the registries the test machines
reach), for test/compat/readme.test.ts only: used when the real package cannot be imported. It
makes the calls the real client makes on the channel it is given (`CreateKey`, then
`google.longrunning.Operations/GetOperation` until done) with protobuf encoded by hand, so the
README's Python block runs verbatim and exercises its channel idiom: the token must ride on the
channel, since no call here passes metadata."""
import time

from .services.api_keys.transports import ApiKeysGrpcTransport

KEY_TYPE = "type.googleapis.com/google.api.apikeys.v2.Key"


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, value):
    if isinstance(value, str):
        value = value.encode()
    return _varint(number << 3 | 2) + _varint(len(value)) + value


def _fields(data):
    """(number, value) of each field: bytes for length-delimited, int for varints."""
    i = 0
    while i < len(data):
        tag, i = _read_varint(data, i)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, i = _read_varint(data, i)
        elif wire == 2:
            n, i = _read_varint(data, i)
            value, i = data[i:i + n], i + n
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        else:
            raise ValueError("unsupported wire type %d" % wire)
        yield number, value


def _read_varint(data, i):
    shift = result = 0
    while True:
        b = data[i]
        i += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, i


class Key:
    def __init__(self, display_name="", name="", key_string="", uid=""):
        self.display_name, self.name, self.key_string, self.uid = display_name, name, key_string, uid

    def _encode(self):
        return _field(2, self.display_name) if self.display_name else b""

    @classmethod
    def _decode(cls, data):
        f = {n: v for n, v in _fields(data) if n in (1, 2, 3, 5)}
        return cls(name=f.get(1, b"").decode(), display_name=f.get(2, b"").decode(), key_string=f.get(3, b"").decode(), uid=f.get(5, b"").decode())


class _Operation:
    def __init__(self, transport, data):
        self._transport, self._data = transport, data

    def result(self, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            f = dict(_fields(self._data))
            if f.get(3):
                if 4 in f:
                    raise RuntimeError("operation failed: %r" % f[4])
                any_ = dict(_fields(f[5]))
                if any_[1].decode() != KEY_TYPE:
                    raise ValueError("unexpected response type %s" % any_[1])
                return Key._decode(any_[2])
            if time.monotonic() > deadline:
                raise TimeoutError(f[1].decode())
            time.sleep(0.2)
            self._data = self._transport._unary("/google.longrunning.Operations/GetOperation")(_field(1, f[1]), timeout=10)


class ApiKeysClient:
    def __init__(self, transport):
        self._transport = transport

    def create_key(self, parent, key, key_id=""):
        request = _field(1, parent) + _field(2, key._encode()) + (_field(3, key_id) if key_id else b"")
        return _Operation(self._transport, self._transport._unary("/google.api.apikeys.v2.ApiKeys/CreateKey")(request, timeout=10))
