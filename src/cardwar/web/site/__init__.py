"""The server as a site, for the operator who runs it (docs/deploy.md): how a process stops
without cutting anyone off (`draining`), and what it tells its operator, its figures
(`metrics`) and its log (`logs`)."""
