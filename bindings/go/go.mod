module libmkb.dev/mkb

go 1.19
