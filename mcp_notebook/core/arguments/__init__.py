"""A request's arguments: Python values as JSON, validation against schemas, URI
templates."""
