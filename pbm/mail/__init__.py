"""Mail: raw intake, authentication, replies, outbox."""
