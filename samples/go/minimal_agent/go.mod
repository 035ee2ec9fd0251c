module libmkb.dev/samples/minimal_agent

go 1.19

require libmkb.dev/mkb v0.0.0

replace libmkb.dev/mkb => ../../../bindings/go
