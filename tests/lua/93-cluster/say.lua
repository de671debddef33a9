-- say.lua: prints its rank
print("hello from " .. require("iomoon").cluster.rank)
