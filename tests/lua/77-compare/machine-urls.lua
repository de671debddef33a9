-- machine-urls.lua: prints the paths iomoon.machine gives two URLs with
-- passwords (an NBD one, and an iSCSI one with an escaped %)
for _, t in ipairs(require("iomoon").machine({ "nbd://u:pw@h/x", "iscsi://user%%secret@h/iqn.x/0" }).targets) do print(t.path) end
