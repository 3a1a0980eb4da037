"""The event store over REST (append, read a stream, follow the feed), and what every REST
module of the back-office shares: permissions, pagination, strict query parameters,
content negotiation and the request parser."""
