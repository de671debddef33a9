-- verify.lua PATH: phase "verify" reads 1 MiB back against the offset pattern
require('iomoon').run { name = 'verify', target = arg[1], bs = '64k', read = 100, verify = 'offset', bytes = 1 << 20 }
