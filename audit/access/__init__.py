"""Who comes in and what they may do: the access log, API tokens and their admin,
authentication, device accounts, where a request comes from, who may change money, and
the seals over a person's authority."""
