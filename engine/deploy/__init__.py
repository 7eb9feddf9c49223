"""Running past one GPU: the engine server as a Ray Serve application (`ray_serve`), routed by
`router`. Nothing else in `engine/` imports Ray."""
