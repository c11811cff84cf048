"""Stand-in for the GAPIC gRPC transport: see google/cloud/api_keys_v2/__init__.py here."""


class ApiKeysGrpcTransport:
    def __init__(self, channel):
        self._channel = channel

    def _unary(self, method):
        return self._channel.unary_unary(method, request_serializer=lambda b: b, response_deserializer=lambda b: b)
