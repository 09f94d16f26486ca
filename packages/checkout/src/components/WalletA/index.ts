export { WalletA } from "./WalletA.js";
